import BenchCore

/// The loop-thread state of one interface: its setup, listener, links and connections.
final class InterfaceRuntime {
    let kind: InterfaceKind
    var setup: InterfaceSetup {
        didSet { cacheDiscards() }
    }
    /// `setup.link[direction].discards`, kept as plain flags: read on every read.
    private var discardsDownlink = false, discardsUplink = false
    /// The address clients connect to (port resolved after the first bind).
    var endpoint: SocketAddress
    /// The listening (or, while refusing, merely bound) socket.
    var listener: UVTCP?
    var isListening = false
    /// The byte path: a link chain per direction, then the connection faults.
    var links: InterfaceLinks<SliceRun>
    var connections: [ConnectionID: ProxyConnection] = [:]
    /// `ConditionerConfiguration.countsRefusals`: a down (reset, refuse) interface
    /// accepts and resets instead of letting the kernel refuse.
    let countsRefusals: Bool

    init(kind: InterfaceKind, setup: InterfaceSetup, endpoint: SocketAddress, generator: SeededGenerator, now: UInt64,
         countsRefusals: Bool = false) {
        self.kind = kind
        self.setup = setup
        self.endpoint = endpoint
        self.countsRefusals = countsRefusals
        links = InterfaceLinks(kind: kind, link: setup.link, generator: generator, now: now)
        cacheDiscards()
    }

    /// Whether bytes read in `direction` are thrown away (`LinkDirectionParameters.discards`).
    func discards(_ direction: Direction) -> Bool {
        direction == .downlink ? discardsDownlink : discardsUplink
    }

    private func cacheDiscards() {
        discardsDownlink = setup.link.downlink.discards
        discardsUplink = setup.link.uplink.discards
    }

    /// The earliest deadline of the links, read in place: calling a method on a struct
    /// stored in a class copies the struct first (every stage's storage retained and
    /// released), and this runs after every event.
    func nextLinkDeadline() -> UInt64? {
        func deadline(_ links: inout InterfaceLinks<SliceRun>) -> UInt64? { links.nextDeadline() }
        return deadline(&links)
    }

    /// True when bytes may move: up. A blackholed interface holds everything.
    var isForwarding: Bool { setup.state == .up }

    /// What happens to a new connection now.
    var admission: Admission { Admission(state: setup.state, countsRefusals: countsRefusals) }

    /// True when new connections are accepted and kept: up or blackholed.
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

/// What an interface does with a new connection, by its state: the rule the core
/// follows when it listens, refuses, or accepts and resets. Pure.
enum Admission: Equatable, Sendable {
    /// Up: accept and forward.
    case forward
    /// Blackholed: accept and hold until the interface is up.
    case hold
    /// Down (reset or refuse): the kernel refuses (a bound socket that does not listen
    /// answers SYN with RST, the client's connect fails with ECONNREFUSED); the
    /// conditioner never sees the attempt.
    case refuseInKernel
    /// Down (reset or refuse) with `countsRefusals`: accept, count (`connectionRefused`),
    /// and close at once with RST (the client's connect succeeds, then it is reset).
    case acceptAndReset

    init(state: InterfaceState, countsRefusals: Bool) {
        switch state {
        case .up: self = .forward
        case .down(.blackhole): self = .hold
        case .down(.reset), .down(.refuse): self = countsRefusals ? .acceptAndReset : .refuseInKernel
        }
    }

    /// Whether the interface's socket listens (else it is only bound).
    var listens: Bool { self != .refuseInKernel }
}
