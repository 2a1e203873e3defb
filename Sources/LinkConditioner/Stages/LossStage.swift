import BenchCore

/// What a `LossStage` is set to: the loss model and the retransmission timeout.
struct LossSettings: Equatable, Sendable {
    /// A lost quantum always holds its connection at least this long (1 ms), so that
    /// a link with 100% loss and a zero timeout moves time forward instead of spinning.
    static let minimumRetransmissionTimeout: UInt64 = 1_000_000

    /// Bernoulli or Gilbert-Elliott, drawn once per quantum.
    var model: LossModel
    /// How long a lost quantum holds its connection, in ns (at least the minimum).
    private(set) var retransmissionTimeout: UInt64

    /// - Parameter retransmissionTimeout: ns (`InterfaceLink.retransmissionTimeout`);
    ///   raised to `minimumRetransmissionTimeout`.
    init(model: LossModel, retransmissionTimeout: UInt64) {
        self.model = model
        self.retransmissionTimeout = max(retransmissionTimeout, Self.minimumRetransmissionTimeout)
    }
}

/// Loss: decides, quantum by quantum, whether the link loses it.
///
/// It sits after the bottleneck, so a lost quantum has used the link. It takes no
/// time: a packet leaves when it arrives. A lost one leaves marked `heldUntil`
/// (its arrival plus the retransmission timeout); the chain sends it back to the
/// bottleneck, which holds its connection until then and charges its bytes to the
/// link again. A userspace proxy cannot drop bytes inside the kernel's TCP, so
/// this is how loss shows on a byte stream: the stream stalls for a timeout.
///
/// Its state (the Gilbert-Elliott state, `LossProcess`) belongs to the link, like
/// the radio conditions it stands for; it has no per-connection state.
struct LossStage<Payload: LinkPayload>: LinkStage {
    private(set) var settings: LossSettings
    private var process: LossProcess
    private var generator: SeededGenerator
    /// Judged packets not yet taken, in arrival order.
    private var judged: [LinkPacket<Payload>] = []
    private var head = 0

    /// - Parameter generator: a dedicated stream, e.g. `seed.derived("wifi.downlink")`.
    init(settings: LossSettings, generator: SeededGenerator) {
        self.settings = settings
        self.process = LossProcess(model: settings.model)
        self.generator = generator
    }

    /// A live change. A Gilbert-Elliott link keeps its state (`LossProcess.update`);
    /// packets already marked keep their hold.
    mutating func update(settings newSettings: LossSettings) {
        process.update(model: newSettings.model)
        settings = newSettings
    }

    /// Draws the packet's fate now; a lost one is marked to be held until `at` plus
    /// the retransmission timeout.
    mutating func enqueue(_ packet: consuming LinkPacket<Payload>) {
        if process.nextQuantumIsLost(using: &generator) {
            let (until, overflow) = packet.at.addingReportingOverflow(settings.retransmissionTimeout)
            packet.heldUntil = overflow ? .max : until
        }
        judged.append(packet)
    }

    mutating func dequeue(readyBy now: UInt64) -> LinkPacket<Payload>? {
        guard head < judged.count, judged[head].at <= now else { return nil }
        var packet = LinkPacket(connection: judged[head].connection, payload: Payload(), at: judged[head].at,
                                heldUntil: judged[head].heldUntil)
        swap(&packet.payload, &judged[head].payload)  // moved out, not copied
        head += 1
        if head == judged.count {
            judged.removeAll(keepingCapacity: true)
            head = 0
        }
        return packet
    }

    func nextDeadline() -> UInt64? {
        head < judged.count ? judged[head].at : nil
    }

    func pendingBytes(for connection: ConnectionID) -> Int {
        judged[head...].reduce(0) { $1.connection == connection ? $0 + $1.bytes : $0 }
    }

    mutating func removeConnection(_ connection: ConnectionID) -> Int {
        let dropped = pendingBytes(for: connection)
        if dropped > 0 {
            judged = judged[head...].filter { $0.connection != connection }
            head = 0
        }
        return dropped
    }
}

extension LossStage: Sendable where Payload: Sendable {}
