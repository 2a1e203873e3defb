import BenchCore

/// The loop-thread state of one interface: its setup, listener, links and connections.
final class InterfaceRuntime {
    let kind: InterfaceKind
    var setup: InterfaceSetup
    /// The address clients connect to (port resolved after the first bind).
    var endpoint: SocketAddress
    /// The listening (or, while refusing, merely bound) socket.
    var listener: UVTCP?
    var isListening = false
    var schedulers: [Direction: LinkScheduler]
    var connections: [ConnectionID: ProxyConnection] = [:]

    init(kind: InterfaceKind, setup: InterfaceSetup, endpoint: SocketAddress, generator: SeededGenerator, now: UInt64) {
        self.kind = kind
        self.setup = setup
        self.endpoint = endpoint
        let rto = setup.link.retransmissionTimeout.nanoseconds
        schedulers = [
            .downlink: LinkScheduler(parameters: setup.link.downlink, retransmissionTimeout: rto,
                                     generator: generator.derived("\(kind).downlink"), now: now),
            .uplink: LinkScheduler(parameters: setup.link.uplink, retransmissionTimeout: rto,
                                   generator: generator.derived("\(kind).uplink"), now: now),
        ]
    }

    /// True when bytes may move: up. A blackholed interface holds everything.
    var isForwarding: Bool { setup.state == .up }

    /// True when new connections are accepted: up or blackholed.
    var acceptsConnections: Bool {
        switch setup.state {
        case .up, .down(.blackhole): true
        case .down: false
        }
    }

    /// How this interface appears in the network path, if it does. A blackholed
    /// interface still looks usable: the OS does not know it is dead.
    var pathInterface: PathInterface? {
        guard acceptsConnections else { return nil }
        return PathInterface(kind: kind, isExpensive: setup.link.isExpensive,
                             isConstrained: setup.link.isConstrained, endpoint: endpoint.description)
    }

    func queueLimit(_ direction: Direction, default fallback: Int) -> Int {
        setup.link[direction].queueLimitBytes ?? fallback
    }
}
