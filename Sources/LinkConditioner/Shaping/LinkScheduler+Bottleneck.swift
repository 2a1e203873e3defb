import BenchCore

/// The bottleneck of `LinkScheduler`: which flow is served next, how long its
/// quantum takes, and what happens when it is served.
extension LinkScheduler {
    /// The quantum the bottleneck serves next, without committing it. O(active
    /// connections) at most, O(1) while the flow whose turn it is has bytes ready.
    ///
    /// The flow whose turn it is goes first if it is eligible when the link frees
    /// up; otherwise the first in round-robin order among those eligible earliest
    /// (the link idles until then).
    func nextQuantum() -> Quantum? {
        guard !active.isEmpty else { return nil }
        var chosen = -1
        var start = UInt64.max
        for step in 0..<active.count {
            let turn = (cursor + step) % active.count
            let eligible = flows[active[turn]]!.eligibleAt!
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
        let bytes = flows[slot]!.quantumSize(startingAt: start, limit: Self.mtu)
        // Progress carried over an update counts only if the link went on without idling.
        let carried = start == linkFreeAt ? carriedBytes : 0
        let finish = serializationEnd(start: start, bytes: Double(bytes) - carried)
        return Quantum(turn: chosen, slot: slot, start: start, bytes: bytes, finish: finish)
    }

    /// When `bytes` starting at `start` have crossed the bottleneck; nil while the
    /// rate delivers nothing (a zero constant rate, or a trace that never delivers them).
    func serializationEnd(start: UInt64, bytes: Double) -> UInt64? {
        if bytes <= 0 { return start }
        switch parameters.rate {
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
        switch parameters.rate {
        case .unlimited:
            return .infinity
        case .constant(let bitsPerSecond):
            return max(0, bitsPerSecond) * Double(to - from) / 8e9
        case .trace(let trace):
            return trace.deliverableBytes(from: from - traceStart, to: to - traceStart)
        }
    }

    /// Serves `quantum`, which finished at `finish`: draws its loss and either holds
    /// its flow (returning the `.lost` output) or puts it on the delay line.
    mutating func commit(_ quantum: Quantum, finish: UInt64) -> SchedulerOutput? {
        linkFreeAt = finish
        carriedBytes = 0
        let slot = quantum.slot
        if loss.nextQuantumIsLost(using: &generator) {
            let (heldUntil, overflow) = finish.addingReportingOverflow(retransmissionTimeout)
            flows[slot]!.retransmitBytes = quantum.bytes
            flows[slot]!.heldUntil = overflow ? .max : heldUntil
            cursor = (quantum.turn + 1) % active.count
            return .lost(flows[slot]!.id, bytes: quantum.bytes, heldUntil: flows[slot]!.heldUntil)
        }
        flows[slot]!.consume(quantum.bytes)
        let release = max(finish.addingSaturating(propagationSample()), flows[slot]!.lastRelease)
        addToDelayLine(quantum.bytes, slot: slot, release: release)
        if flows[slot]!.queuedBytes == 0 {
            active.remove(at: quantum.turn)
            cursor = active.isEmpty ? 0 : quantum.turn % active.count
        } else {
            cursor = (quantum.turn + 1) % active.count
        }
        return nil
    }

    /// One quantum's one-way delay: delay + U[-jitter, +jitter], at least zero.
    /// Draws from the generator only when there is jitter.
    mutating func propagationSample() -> UInt64 {
        let delay = parameters.delay.nanoseconds
        let jitter = parameters.jitter.nanoseconds
        guard jitter > 0 else { return delay }
        let sample = Double(delay) + (generator.unit() * 2 - 1) * Double(jitter)
        guard sample > 0 else { return 0 }
        return sample >= 0x1p63 ? UInt64(1) << 63 : UInt64(sample.rounded())
    }
}

fileprivate extension UInt64 {
    /// `self + other`, or `.max` when that overflows.
    func addingSaturating(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}
