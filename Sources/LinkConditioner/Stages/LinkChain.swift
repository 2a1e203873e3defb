import BenchCore

/// One interface's link in one direction: the stages bytes cross, in the order
/// they meet them (queue and rate, then loss, then delay, then slicing).
///
/// A pure state machine in the mahimahi mould: the libuv driver calls `enqueue`
/// when it reads bytes from a sender, and `advance(to:)` (through
/// `InterfaceLinks.advance`) when the timer it armed for `nextDeadline()` fires,
/// and performs the returned `LinkOutput`s. Time is passed in as monotonic
/// nanoseconds and never read. It is a value type: the driver owns it and uses it
/// from the loop thread only. The connection faults come after it, in
/// `InterfaceLinks`, shared by both directions.
///
/// - `BottleneckStage`: a rate shared fairly by the connections (deficit round
///   robin, MTU quanta), with each connection's bytes queued there once.
/// - `LossStage`: each quantum that crossed the bottleneck is lost or not; a lost
///   one goes back to the bottleneck, holding its connection for the retransmission
///   timeout and charged to the link again.
/// - `DelayStage`: one-way delay and jitter that never reorders a connection.
/// - `SlicingStage`: when the direction slices, each connection's bytes leave in slices
///   a gap apart, each its own `.deliver` (so the driver writes it on its own); skipped
///   while it slices nothing and holds nothing.
///
/// Nothing is dropped on the floor: every enqueued byte is delivered, or counted
/// by `removeConnection`.
struct LinkChain<Payload: LinkPayload> {
    private(set) var bottleneck: BottleneckStage<Payload>
    private(set) var loss: LossStage<Payload>
    private(set) var delay: DelayStage<Payload>
    private(set) var slicing: SlicingStage<Payload>

    /// - Parameters:
    ///   - parameters: the direction's link (rate, delay, jitter, loss).
    ///   - retransmissionTimeout: hold after a loss in ns (`InterfaceLink.retransmissionTimeout`).
    ///   - generator: a dedicated stream, e.g. `seed.derived("wifi.downlink")`: loss draws
    ///     from it, jitter from `generator.derived("jitter")`, each connection's slice sizes
    ///     from `generator.derived("slicing").derived("connection.<id>")`.
    ///   - now: monotonic ns; a trace starts here.
    init(parameters: LinkDirectionParameters, retransmissionTimeout: UInt64, generator: SeededGenerator, now: UInt64) {
        bottleneck = BottleneckStage(settings: BottleneckSettings(rate: parameters.rate), now: now)
        loss = LossStage(settings: LossSettings(model: parameters.loss, retransmissionTimeout: retransmissionTimeout),
                         generator: generator)
        delay = DelayStage(settings: DelaySettings(parameters), generator: generator.derived("jitter"))
        slicing = SlicingStage(settings: parameters.slicing.map(SlicingSettings.init),
                               generator: generator.derived("slicing"))
    }

    /// A live change of the link (or a restart after the link was dead): see
    /// `BottleneckStage.update` for the rate. Bytes already on the delay line keep
    /// their release times; connections already held keep their hold; bytes waiting to be
    /// sliced are sliced by the new setting (all at once when slicing is removed).
    mutating func update(parameters: LinkDirectionParameters, retransmissionTimeout: UInt64, now: UInt64) {
        bottleneck.update(settings: BottleneckSettings(rate: parameters.rate), now: now)
        loss.update(settings: LossSettings(model: parameters.loss, retransmissionTimeout: retransmissionTimeout))
        delay.update(settings: DelaySettings(parameters))
        slicing.update(settings: parameters.slicing.map(SlicingSettings.init))
    }

    /// Queues bytes read from the sender of `connection` at `now`.
    mutating func enqueue(_ payload: consuming Payload, for connection: ConnectionID, now: UInt64) {
        bottleneck.enqueue(LinkPacket(connection: connection, payload: payload, at: now))
    }

    /// Moves bytes through the stages up to `now` and returns what the driver must
    /// do, in time order: a `.lost` at the quantum's finish, a `.deliver` at the
    /// release of the last byte it covers. All the bytes of one connection released
    /// by `now` come in one `.deliver`; at equal instants deliveries come before losses.
    ///
    /// Each quantum is judged by the loss stage before the bottleneck picks the next
    /// one, so a loss holds its connection from that very instant.
    mutating func advance(to now: UInt64) -> [LinkOutput<Payload>] {
        var outputs: [LinkOutput<Payload>] = []
        // (instant, deliveries before losses) of each output: plain values, cheap to compare.
        var keys: [(at: UInt64, rank: Int)] = []
        while let served = bottleneck.dequeue(readyBy: now) {
            loss.enqueue(served)
            while let judged = loss.dequeue(readyBy: now) {
                if let heldUntil = judged.heldUntil {
                    outputs.append(.lost(judged.connection, bytes: judged.bytes, heldUntil: heldUntil))
                    keys.append((judged.at, 1))
                    bottleneck.enqueue(judged)  // sent again after the hold
                } else {
                    delay.enqueue(judged)
                }
            }
        }
        while let released = delay.dequeue(readyBy: now) {
            if slicing.isPassive {
                keys.append((released.at, 0))
                outputs.append(.deliver(released.connection, released.payload))
            } else {
                slicing.enqueue(released)
            }
        }
        while let slice = slicing.dequeue(readyBy: now) {
            keys.append((slice.at, 0))
            outputs.append(.deliver(slice.connection, slice.payload))
        }
        // Usually already in order; otherwise a stable sort by key.
        guard outputs.count > 1,
              zip(keys, keys.dropFirst()).contains(where: { ($0.at, $0.rank) > ($1.at, $1.rank) }) else { return outputs }
        let order = keys.indices.sorted { (keys[$0].at, keys[$0].rank, $0) < (keys[$1].at, keys[$1].rank, $1) }
        return order.map { outputs[$0] }
    }

    /// Absolute ns at which `advance` should be called next; nil when nothing can
    /// happen without a new event (nothing pending, or only bytes behind a stalled link).
    func nextDeadline() -> UInt64? {
        let linked: UInt64? = switch (bottleneck.nextDeadline(), delay.nextDeadline()) {
        case let (b?, d?): min(b, d)
        case let (b, d): b ?? d
        }
        guard let sliced = slicing.nextDeadline() else { return linked }
        return min(linked ?? sliced, sliced)
    }

    /// Bytes of `connection` not yet delivered (every stage).
    func pendingBytes(for connection: ConnectionID) -> Int {
        bottleneck.pendingBytes(for: connection) + loss.pendingBytes(for: connection)
            + delay.pendingBytes(for: connection) + slicing.pendingBytes(for: connection)
    }

    /// Forgets a connection (it closed or was reset). Returns the bytes discarded,
    /// wherever they were.
    mutating func removeConnection(_ connection: ConnectionID) -> Int {
        bottleneck.removeConnection(connection) + loss.removeConnection(connection)
            + delay.removeConnection(connection) + slicing.removeConnection(connection)
    }

    /// Bytes waiting at the bottleneck across all connections.
    var bottleneckBytes: Int { bottleneck.queuedBytes }

    /// True when nothing is pending anywhere.
    var isIdle: Bool {
        bottleneck.queuedBytes == 0 && delay.bytesInFlight == 0 && loss.nextDeadline() == nil && slicing.queuedBytes == 0
    }
}

extension LinkChain: Sendable where Payload: Sendable {}

extension DelaySettings {
    init(_ parameters: LinkDirectionParameters) {
        self.init(delay: parameters.delay.nanoseconds, jitter: parameters.jitter.nanoseconds)
    }
}
