import BenchCore

/// The shared bottleneck and propagation delay line of one interface in one direction.
///
/// A pure state machine in the mahimahi mould: the libuv driver calls
/// `enqueue` when it reads bytes from a sender, `advance(to:)` when the timer it
/// armed for `nextDeadline()` fires, and performs the returned `SchedulerOutput`s
/// (writes, loss events). Time is passed in as monotonic nanoseconds and never
/// read; randomness comes from the injected generator. It is a value type: the
/// driver owns it and uses it from the loop thread only.
///
/// **Bottleneck.** Connections with queued bytes are served round robin, one
/// quantum of at most `mtu` bytes per turn (deficit round robin with an MTU
/// quantum), so the rate is shared fairly by all the connections of the link.
/// Serialization runs on a virtual "link free at" clock: a quantum of `n` bytes
/// starting at `s = max(linkFreeAt, arrival)` finishes at `s + n·8/rate` (or where
/// the rate trace has delivered `n` more bytes). `advance(to:)` serves every
/// quantum finishing at or before `now` in virtual time, so a late timer neither
/// loses nor gains capacity; an idle link earns no credit (a quantum never starts
/// before its bytes arrived). With `.unlimited` rate service is instantaneous.
///
/// **Loss.** Each quantum is lost or not by the `LossModel` (Gilbert-Elliott moves
/// once per quantum). A lost quantum still consumed link time; its connection is
/// held until `finish + retransmissionTimeout`, then the same bytes are sent again.
///
/// **Delay line.** A served quantum is released at
/// `max(finish + max(0, delay + U[-jitter, +jitter]), previous release of that
/// connection)`, so jitter never reorders a connection.
///
/// Nothing is dropped on the floor: every enqueued byte is delivered, or counted
/// by `removeConnection`.
struct LinkScheduler: Sendable {
    /// Bytes per quantum: one "packet" of the byte stream.
    static let mtu = 1500
    /// A lost quantum always holds its stream at least this long (1 ms), so that a
    /// link with 100% loss and a zero timeout moves time forward instead of spinning.
    static let minimumRetransmissionTimeout: UInt64 = 1_000_000

    /// One quantum the bottleneck would serve next (not yet committed).
    struct Quantum: Equatable, Sendable {
        /// Index in `active` of the served flow.
        var turn: Int
        var slot: Int
        var start: UInt64
        var bytes: Int
        /// When its last bit leaves the bottleneck; nil while the link is stalled.
        var finish: UInt64?
    }

    private(set) var parameters: LinkDirectionParameters
    private(set) var retransmissionTimeout: UInt64
    var generator: SeededGenerator
    var loss: LossProcess
    /// When the current rate trace was switched in (trace offsets count from here).
    var traceStart: UInt64
    /// Virtual time at which the bottleneck finishes its last committed quantum.
    var linkFreeAt: UInt64
    /// Bytes of the next quantum already sent before the last `update` (at most one quantum).
    var carriedBytes: Double = 0

    /// Flows by slot; nil slots are free for reuse.
    var flows: [ShapedFlow?] = []
    var freeSlots: [Int] = []
    var slotByID: [ConnectionID: Int] = [:]
    /// Slots with queued bytes, in round-robin order (newcomers join at the end).
    var active: [Int] = []
    /// Index in `active` of the flow whose turn is next.
    var cursor = 0
    /// Head release of every non-empty delay line.
    var releases = ReleaseHeap()

    /// Bytes waiting at the bottleneck across all connections (for the queue limit).
    private(set) var bottleneckBytes = 0
    /// Bytes in the delay line across all connections.
    private(set) var delayLineBytes = 0

    /// - Parameters:
    ///   - parameters: the direction's link (rate, delay, jitter, loss).
    ///   - retransmissionTimeout: hold after a loss in ns (`InterfaceLink.retransmissionTimeout`).
    ///   - generator: a dedicated stream, e.g. `seed.derived("wifi.downlink")`.
    ///   - now: monotonic ns; a trace starts here.
    init(parameters: LinkDirectionParameters, retransmissionTimeout: UInt64, generator: SeededGenerator, now: UInt64) {
        self.parameters = parameters
        self.retransmissionTimeout = max(retransmissionTimeout, Self.minimumRetransmissionTimeout)
        self.generator = generator
        self.loss = LossProcess(model: parameters.loss)
        self.traceStart = now
        self.linkFreeAt = now
    }

    /// A live change of the link (or a restart after the link was dead).
    ///
    /// The bottleneck clock moves to `now`. The quantum in progress keeps the bytes
    /// it already sent under the old rate and sends the rest under the new one, so
    /// repeated updates neither lose nor gain capacity. Time the bottleneck was not
    /// advanced through is forfeited beyond that one quantum: call `advance(to: now)`
    /// first to serve what finished under the old parameters; skip it (and update
    /// with the same parameters) to restart a link that was dead, such as a
    /// blackholed interface coming back, with no credit for the dead time.
    ///
    /// A newly set trace starts at offset 0 at `now`; the same trace keeps its
    /// offset. Quanta already on the delay line keep their release times;
    /// connections already held keep their hold.
    mutating func update(parameters newParameters: LinkDirectionParameters, retransmissionTimeout: UInt64, now: UInt64) {
        if let quantum = nextQuantum(), quantum.start <= now {
            let carried = quantum.start == linkFreeAt ? carriedBytes : 0
            carriedBytes = min(Double(quantum.bytes), carried + bytesSent(from: quantum.start, to: now))
        } else {
            carriedBytes = 0
        }
        linkFreeAt = max(linkFreeAt, now)
        if case .trace(let trace) = newParameters.rate, parameters.rate != .trace(trace) {
            traceStart = now
        }
        loss.update(model: newParameters.loss)
        parameters = newParameters
        self.retransmissionTimeout = max(retransmissionTimeout, Self.minimumRetransmissionTimeout)
    }

    /// Queues `bytes` read from the sender of `connection` at `now`. A connection is
    /// created by its first bytes and lives until `removeConnection`.
    mutating func enqueue(_ bytes: Int, for connection: ConnectionID, now: UInt64) {
        guard bytes > 0 else { return }
        let slot = slotByID[connection] ?? makeFlow(connection)
        if flows[slot]!.queuedBytes == 0 { active.append(slot) }
        flows[slot]!.append(bytes, arrival: now)
        bottleneckBytes += bytes
    }

    /// Forgets a connection (it closed or was reset). Returns the bytes discarded:
    /// those queued at the bottleneck plus those on the delay line.
    mutating func removeConnection(_ connection: ConnectionID) -> Int {
        guard let slot = slotByID.removeValue(forKey: connection), let flow = flows[slot] else { return 0 }
        bottleneckBytes -= flow.queuedBytes
        delayLineBytes -= flow.inFlightBytes
        if let turn = active.firstIndex(of: slot) {
            active.remove(at: turn)
            if cursor > turn { cursor -= 1 }
            if cursor >= active.count { cursor = 0 }
        }
        releases.removeAll(slot: slot)
        flows[slot] = nil
        freeSlots.append(slot)
        return flow.queuedBytes + flow.inFlightBytes
    }

    /// Serves the bottleneck and the delay line up to `now` and returns what the
    /// driver must do, in time order: a `.lost` at the quantum's finish, a
    /// `.deliver` at the release of the last byte it covers. All the bytes of one
    /// connection released by `now` are coalesced into one `.deliver`; at equal
    /// instants deliveries come before losses.
    mutating func advance(to now: UInt64) -> [SchedulerOutput] {
        var stamped: [(at: UInt64, rank: Int, output: SchedulerOutput)] = []
        while let quantum = nextQuantum(), let finish = quantum.finish, finish <= now {
            if let lost = commit(quantum, finish: finish) {
                stamped.append((finish, 1, lost))
            }
        }
        while let head = releases.min, head.release <= now {
            releases.popMin()
            let (bytes, last) = flows[head.slot]!.popReleased(upTo: now)
            delayLineBytes -= bytes
            stamped.append((last, 0, .deliver(flows[head.slot]!.id, bytes: bytes)))
            if let next = flows[head.slot]!.nextRelease {
                releases.push(release: next, slot: head.slot)
            }
        }
        guard stamped.count > 1 else { return stamped.map(\.output) }
        let ordered = stamped.enumerated().sorted {
            ($0.element.at, $0.element.rank, $0.offset) < ($1.element.at, $1.element.rank, $1.offset)
        }
        return ordered.map(\.element.output)
    }

    /// Absolute ns at which `advance` should be called next; nil when nothing can
    /// happen without a new event (nothing pending, or only bytes behind a stalled link).
    func nextDeadline() -> UInt64? {
        let bottleneck = nextQuantum()?.finish
        let delayLine = releases.min?.release
        switch (bottleneck, delayLine) {
        case let (b?, d?): return min(b, d)
        case let (b, d): return b ?? d
        }
    }

    /// Bytes of `connection` not yet delivered (bottleneck plus delay line).
    func pendingBytes(for connection: ConnectionID) -> Int {
        guard let slot = slotByID[connection], let flow = flows[slot] else { return 0 }
        return flow.queuedBytes + flow.inFlightBytes
    }

    /// True when nothing is pending anywhere.
    var isIdle: Bool { bottleneckBytes == 0 && delayLineBytes == 0 }

    private mutating func makeFlow(_ connection: ConnectionID) -> Int {
        let flow = ShapedFlow(id: connection)
        let slot: Int
        if let reused = freeSlots.popLast() {
            flows[reused] = flow
            slot = reused
        } else {
            flows.append(flow)
            slot = flows.count - 1
        }
        slotByID[connection] = slot
        return slot
    }

    /// Marks bytes put on the delay line (used by `commit`).
    mutating func addToDelayLine(_ bytes: Int, slot: Int, release: UInt64) {
        if flows[slot]!.nextRelease == nil { releases.push(release: release, slot: slot) }
        flows[slot]!.pushInFlight(bytes, release: release)
        bottleneckBytes -= bytes
        delayLineBytes += bytes
    }
}
