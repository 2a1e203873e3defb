import BenchCore

/// The service of a `BottleneckStage`: whose turn it is, how long a quantum takes.
extension BottleneckStage {
    /// The quantum the bottleneck serves next, without committing it. O(active
    /// connections) at most, O(1) while the connection whose turn it is has bytes ready.
    ///
    /// The connection whose turn it is goes first if it is eligible when the link
    /// frees up; otherwise the first in round-robin order among those eligible
    /// earliest (the link idles until then).
    func nextQuantum() -> Quantum? {
        guard !active.isEmpty else { return nil }
        var chosen = -1
        var start = UInt64.max
        for step in 0..<active.count {
            let turn = (cursor + step) % active.count
            let eligible = queues[active[turn]]!.eligibleAt!
            if eligible <= linkFreeAt {
                chosen = turn
                start = linkFreeAt
                break
            }
            if eligible < start {
                chosen = turn
                start = eligible
            }
        }
        let slot = active[chosen]
        let bytes = queues[slot]!.quantumSize(startingAt: start, limit: BottleneckSettings.mtu)
        // Progress carried over an update counts only if the link went on without idling.
        let carried = start == linkFreeAt ? carriedBytes : 0
        let finish = serializationEnd(start: start, bytes: Double(bytes) - carried)
        return Quantum(turn: chosen, slot: slot, start: start, bytes: bytes, finish: finish)
    }

    /// When `bytes` starting at `start` have crossed the bottleneck; nil while the
    /// rate delivers nothing (a zero constant rate, or a trace that never delivers them).
    func serializationEnd(start: UInt64, bytes: Double) -> UInt64? {
        if bytes <= 0 { return start }
        switch settings.rate {
        case .unlimited:
            return start
        case .constant(let bitsPerSecond):
            guard bitsPerSecond > 0 else { return nil }
            let nanoseconds = (bytes * 8e9 / bitsPerSecond).rounded()
            guard nanoseconds < 0x1p63 else { return nil }
            let (end, overflow) = start.addingReportingOverflow(UInt64(nanoseconds))
            return overflow ? nil : end
        case .trace(let trace):
            guard let offset = trace.finishTime(start: start - traceStart, bytes: bytes) else { return nil }
            let (end, overflow) = traceStart.addingReportingOverflow(offset)
            return overflow ? nil : end
        }
    }

    /// Bytes the bottleneck can send between `from` and `to` at the current rate.
    func bytesSent(from: UInt64, to: UInt64) -> Double {
        guard to > from else { return 0 }
        switch settings.rate {
        case .unlimited:
            return .infinity
        case .constant(let bitsPerSecond):
            return max(0, bitsPerSecond) * Double(to - from) / 8e9
        case .trace(let trace):
            return trace.deliverableBytes(from: from - traceStart, to: to - traceStart)
        }
    }
}
