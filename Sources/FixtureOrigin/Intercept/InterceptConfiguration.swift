import BenchCore

/// How an `InterceptingProxy` listens, which hosts it answers for and how it reaches them.
/// A `Sendable` value; `bench proxy --intercept` and the tests fill it.
public struct InterceptConfiguration: Sendable {
    /// Address to bind. Default `127.0.0.1` (loopback: the conditioner reaches it there).
    public var host: String
    /// Port to bind; 0 (default) lets the system choose (`InterceptingProxy.port`).
    public var port: Int
    /// The hosts intercepted: a CONNECT or an absolute-form request for any other is
    /// refused (403), since only named hosts are ever intercepted.
    public var rules: [InterceptRule]
    /// The CA that signs the certificate minted for each host (the run's, or one the user
    /// asked to keep: `RunCertificateAuthority.reusable(in:)`).
    public var authority: RunCertificateAuthority
    /// PEM file of CA certificates trusted for the real hosts, beside the system's
    /// (`--upstream-ca`); nil: the system's only. Verification is never turned off.
    public var upstreamCAFile: String?
    /// Which interface an exchange came through, by the destination of the connection's
    /// PROXY header (a conditioner listener's `"host:port"` → interface name), as the
    /// origin's `OriginConfiguration.interfaces`.
    public var interfaces: [String: String]
    /// Longest wait for the real host to connect, and between two reads of its answer.
    public var upstreamConnectTimeout: Duration
    public var upstreamReadTimeout: Duration
    /// The clock of `OriginRequestRecord.startedAtNanoseconds` and the durations.
    public var clock: any TraceClock
    /// Event-loop threads. Default 2.
    public var threads: Int
    /// The number of its first connection: a run that logs these exchanges beside the
    /// fixture origin's numbers them apart (the origin numbers its own from 1).
    public var firstConnectionID: UInt64 = 1

    public init(
        host: String = "127.0.0.1", port: Int = 0, rules: [InterceptRule], authority: RunCertificateAuthority,
        upstreamCAFile: String? = nil, interfaces: [String: String] = [:],
        upstreamConnectTimeout: Duration = .seconds(15), upstreamReadTimeout: Duration = .seconds(60),
        clock: any TraceClock = MonotonicClock(), threads: Int = 2
    ) {
        self.host = host
        self.port = port
        self.rules = rules
        self.authority = authority
        self.upstreamCAFile = upstreamCAFile
        self.interfaces = interfaces
        self.upstreamConnectTimeout = upstreamConnectTimeout
        self.upstreamReadTimeout = upstreamReadTimeout
        self.clock = clock
        self.threads = threads
    }
}
