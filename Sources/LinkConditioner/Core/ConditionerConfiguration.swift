import BenchCore

/// How a `LinkConditioner` is set up. Sendable; documented field by field.
public struct ConditionerConfiguration: Sendable {
    /// Where every interface forwards to (the origin).
    public var upstream: SocketAddress
    /// Listen address of each interface. Port 0 picks a free port.
    /// Defaults: wifi on 127.0.0.2, cellular on 127.0.0.3 (Linux routes all of 127/8 to loopback).
    public var listeners: [InterfaceKind: SocketAddress]
    /// Send a PROXY protocol v1 line upstream naming the client and the interface's listen address.
    public var proxyProtocol: Bool
    /// The network to simulate. Its timeline plays only when `playTimeline` is true.
    public var profile: Profile
    public var playTimeline: Bool
    /// Interfaces the driver holds down from the start, whatever the profile says, and
    /// the mode of each: the profile's changes to their state wait until a
    /// `setState(.up)` lifts the hold (the overlay rule, `ProfileOverlay`). Empty by
    /// default: every interface starts as the profile says.
    public var holds: [InterfaceKind: DownMode]
    /// Event times are nanoseconds since this monotonic instant (CLOCK_MONOTONIC); nil means the start.
    /// Give several components the same epoch to merge their traces.
    public var epoch: UInt64?
    /// How often `bytesForwarded` progress events and stall checks happen.
    public var progressInterval: Duration
    /// Bytes waiting with none moving for this long make a `stalled` event.
    public var stallThreshold: Duration
    /// Per connection and direction backlog that pauses reading when no queue limit is set.
    public var defaultQueueLimitBytes: Int
    /// How late a release may be so that nearby deadlines share one wake-up: the
    /// trade between delay precision and CPU (each wake-up writes to every socket
    /// with bytes due).
    public var timerSlack: Duration
    /// How a down interface in `reset` or `refuse` mode turns new connections away.
    /// false (default): its socket stays bound but stops listening, so the kernel
    /// answers SYN with RST (the client's connect fails with ECONNREFUSED) and the
    /// conditioner never sees the attempt. true: it keeps listening, accepts each new
    /// connection, reports it (`connectionRefused`), counts it
    /// (`InterfaceCounters.connectionsRefused`) and closes it at once with RST: the
    /// client's connect succeeds and the connection is reset right after. The harness
    /// turns it on to count every connection attempt an app makes during an outage.
    public var countsRefusals: Bool
    /// Each interface is an HTTP forward proxy for any host (`bench proxy --http-proxy`):
    /// a connection's upstream is what its first request names (a CONNECT target, or the
    /// host of an absolute-form `http://` URL, looked up by name on the loop), and
    /// `upstream` is not used. false (default): every connection goes to `upstream`.
    public var forwardProxy: Bool
    /// The hosts whose connections go to an intercepting proxy (`--intercept`) instead of
    /// the host, and where it listens. With `forwardProxy` every other host is reached as
    /// named; with a fixed `upstream` (the harness's) everything else goes there, and a
    /// connection is connected once its first bytes have said which. nil (default): none.
    public var interception: Interception?

    /// Hosts an HTTP forward proxy hands to an intercepting proxy: a connection whose
    /// first request (a CONNECT, or an absolute-form `http://` request) names one of
    /// `rules` is connected to `proxy`, sent a PROXY v1 line naming the app and the
    /// interface, then the request as the app sent it; the intercepting proxy answers
    /// it. Every other host is looked up and reached as without interception.
    public struct Interception: Sendable {
        /// The hosts intercepted.
        public var rules: [InterceptRule]
        /// The intercepting proxy's listener.
        public var proxy: SocketAddress

        public init(rules: [InterceptRule], proxy: SocketAddress) {
            self.rules = rules
            self.proxy = proxy
        }
    }

    public init(
        upstream: SocketAddress,
        listeners: [InterfaceKind: SocketAddress] = ConditionerConfiguration.defaultListeners,
        proxyProtocol: Bool = false,
        profile: Profile = Profile(name: "transparent"),
        playTimeline: Bool = true,
        holds: [InterfaceKind: DownMode] = [:],
        epoch: UInt64? = nil,
        progressInterval: Duration = .milliseconds(250),
        stallThreshold: Duration = .seconds(1),
        defaultQueueLimitBytes: Int = 1 << 20,
        timerSlack: Duration = .microseconds(250),
        countsRefusals: Bool = false,
        forwardProxy: Bool = false,
        interception: Interception? = nil
    ) {
        self.forwardProxy = forwardProxy
        self.interception = interception
        self.upstream = upstream
        self.listeners = listeners
        self.proxyProtocol = proxyProtocol
        self.profile = profile
        self.playTimeline = playTimeline
        self.holds = holds
        self.epoch = epoch
        self.progressInterval = progressInterval
        self.stallThreshold = stallThreshold
        self.defaultQueueLimitBytes = defaultQueueLimitBytes
        self.timerSlack = timerSlack
        self.countsRefusals = countsRefusals
    }

    /// wifi 127.0.0.2, cellular 127.0.0.3 (ephemeral ports) on Linux; 127.0.0.1 elsewhere.
    public static var defaultListeners: [InterfaceKind: SocketAddress] {
        #if os(Linux)
        [.wifi: SocketAddress(host: "127.0.0.2", port: 0), .cellular: SocketAddress(host: "127.0.0.3", port: 0)]
        #else
        [.wifi: SocketAddress(host: "127.0.0.1", port: 0), .cellular: SocketAddress(host: "127.0.0.1", port: 0)]
        #endif
    }
}

/// PROXY protocol v1 header line (haproxy's proxy-protocol.txt, section 2.1).
enum ProxyProtocolHeader {
    static func line(client: SocketAddress, listener: SocketAddress) -> [UInt8] {
        let family = client.isIPv6 || listener.isIPv6 ? "TCP6" : "TCP4"
        return Array("PROXY \(family) \(client.host) \(listener.host) \(client.port) \(listener.port)\r\n".utf8)
    }
}
