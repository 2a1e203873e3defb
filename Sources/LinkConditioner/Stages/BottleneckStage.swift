import BenchCore

/// What a `BottleneckStage` is set to: the link's rate. Kept apart from the
/// per-connection queues so a live change touches nothing else.
struct BottleneckSettings: Equatable, Sendable {
    /// Bytes per quantum: one "packet" of the byte stream.
    static let mtu = 1500

    /// The rate shared by every connection of the link (constant, unlimited or a trace).
    var rate: RateSpec

    init(rate: RateSpec) {
        self.rate = rate
    }
}

/// Queue and rate: the shared bottleneck of one interface in one direction.
///
/// Connections with queued bytes are served round robin, one quantum of at most
/// `mtu` bytes per turn (deficit round robin with an MTU quantum), so the rate is
/// shared fairly by all the connections of the link. Serialization runs on a
/// virtual "link free at" clock: a quantum of `n` bytes starting at
/// `s = max(linkFreeAt, arrival)` leaves at `s + n·8/rate` (or where the rate trace
/// has delivered `n` more bytes). `dequeue(readyBy:)` hands over every quantum
/// finishing at or before `now` in virtual time, so a late timer neither loses nor
/// gains capacity; an idle link earns no credit (a quantum never starts before its
/// bytes arrived). With `.unlimited` rate service is instantaneous.
///
/// A packet enqueued with `heldUntil` is a lost quantum coming back (`LossStage`):
/// it goes to the head of its connection's queue, is served again whole, and its
/// connection is not served before `heldUntil`. If serving it had emptied the queue,
/// the connection takes back the turn it had, so a loss does not reorder the round.
struct BottleneckStage<Payload: LinkPayload>: LinkStage {
    /// One quantum the bottleneck would serve next (not yet committed).
    struct Quantum: Equatable, Sendable {
        /// Index in `active` of the served connection.
        var turn: Int
        var slot: Int
        var start: UInt64
        var bytes: Int
        /// When its last bit leaves the bottleneck; nil while the link is stalled.
        var finish: UInt64?
    }

    private(set) var settings: BottleneckSettings
    /// When the current rate trace was switched in (trace offsets count from here).
    private(set) var traceStart: UInt64
    /// Virtual time at which the bottleneck finishes its last committed quantum.
    private(set) var linkFreeAt: UInt64
    /// Bytes of the next quantum already sent before the last `update` (at most one quantum).
    private(set) var carriedBytes: Double = 0

    /// Per-connection queues by slot; nil slots are free for reuse.
    private(set) var queues: [BottleneckQueue<Payload>?] = []
    private var slots = ConnectionSlots()
    /// Slots with queued bytes, in round-robin order (newcomers join at the end).
    private(set) var active: [Int] = []
    /// Index in `active` of the connection whose turn is next.
    private(set) var cursor = 0
    /// The connection the last `dequeue` emptied, and the turn it had: a
    /// retransmission of that quantum takes the turn back.
    private var vacated: (slot: Int, turn: Int)?
    /// Bytes waiting across all connections (for the queue limit).
    private(set) var queuedBytes = 0

    /// - Parameter now: monotonic ns; the link is free from here and a trace starts here.
    init(settings: BottleneckSettings, now: UInt64) {
        self.settings = settings
        self.traceStart = now
        self.linkFreeAt = now
    }

    /// A live change of the rate (or a restart after the link was dead).
    ///
    /// The bottleneck clock moves to `now`. The quantum in progress keeps the bytes
    /// it already sent under the old rate and sends the rest under the new one, so
    /// repeated updates neither lose nor gain capacity. Time the bottleneck was not
    /// dequeued through is forfeited beyond that one quantum: dequeue up to `now`
    /// first to serve what finished under the old rate; skip it (and update with the
    /// same settings) to restart a link that was dead, such as a blackholed
    /// interface coming back, with no credit for the dead time.
    ///
    /// A newly set trace starts at offset 0 at `now`; the same trace keeps its
    /// offset. Held connections keep their hold.
    mutating func update(settings newSettings: BottleneckSettings, now: UInt64) {
        if let quantum = nextQuantum(), quantum.start <= now {
            let carried = quantum.start == linkFreeAt ? carriedBytes : 0
            carriedBytes = min(Double(quantum.bytes), carried + bytesSent(from: quantum.start, to: now))
        } else {
            carriedBytes = 0
        }
        linkFreeAt = max(linkFreeAt, now)
        if case .trace(let trace) = newSettings.rate, settings.rate != .trace(trace) {
            traceStart = now
        }
        settings = newSettings
        vacated = nil
    }

    /// Queues bytes of a connection; a connection is created by its first bytes and
    /// lives until `removeConnection`. A packet with `heldUntil` is a retransmission.
    mutating func enqueue(_ packet: consuming LinkPacket<Payload>) {
        let bytes = packet.payload.count
        guard bytes > 0 else { return }
        let slot = slots[packet.connection]
            ?? slots.insert(BottleneckQueue(id: packet.connection), for: packet.connection, in: &queues)
        let wasEmpty = queues[slot]!.queuedBytes == 0
        queuedBytes += bytes
        if let heldUntil = packet.heldUntil {
            queues[slot]!.pushRetransmission(packet.payload, arrival: packet.at, heldUntil: heldUntil)
            if wasEmpty { rejoin(slot) }
        } else {
            queues[slot]!.append(packet.payload, arrival: packet.at)
            if wasEmpty { active.append(slot) }
        }
        vacated = nil
    }

    /// Serves the next quantum if it finishes by `now`: the packet leaves at its finish.
    mutating func dequeue(readyBy now: UInt64) -> LinkPacket<Payload>? {
        guard let quantum = nextQuantum(), let finish = quantum.finish, finish <= now else { return nil }
        linkFreeAt = finish
        carriedBytes = 0
        let slot = quantum.slot
        let payload = queues[slot]!.take(quantum.bytes)
        queuedBytes -= quantum.bytes
        if queues[slot]!.queuedBytes == 0 {
            active.remove(at: quantum.turn)
            cursor = active.isEmpty ? 0 : quantum.turn % active.count
            vacated = (slot, quantum.turn)
        } else {
            cursor = (quantum.turn + 1) % active.count
            vacated = nil
        }
        return LinkPacket(connection: queues[slot]!.id, payload: payload, at: finish)
    }

    /// When the next quantum leaves; nil when nothing is queued or the link is stalled.
    func nextDeadline() -> UInt64? {
        nextQuantum()?.finish
    }

    func pendingBytes(for connection: ConnectionID) -> Int {
        guard let slot = slots[connection] else { return 0 }
        return queues[slot]?.queuedBytes ?? 0
    }

    mutating func removeConnection(_ connection: ConnectionID) -> Int {
        guard case let (slot, queue)? = slots.remove(connection, from: &queues) else { return 0 }
        queuedBytes -= queue.queuedBytes
        if let turn = active.firstIndex(of: slot) {
            active.remove(at: turn)
            if cursor > turn { cursor -= 1 }
            if cursor >= active.count { cursor = 0 }
        }
        vacated = nil
        return queue.queuedBytes
    }

    /// A connection with bytes again after a loss: back to the turn it had if the
    /// lost quantum emptied its queue, else to the end of the round.
    private mutating func rejoin(_ slot: Int) {
        if let vacated, vacated.slot == slot, vacated.turn <= active.count {
            active.insert(slot, at: vacated.turn)
            cursor = (vacated.turn + 1) % active.count
        } else {
            active.append(slot)
        }
    }
}

extension BottleneckStage: Sendable where Payload: Sendable {}
