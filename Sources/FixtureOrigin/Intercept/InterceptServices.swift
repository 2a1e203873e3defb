import AsyncHTTPClient
import BenchCore
import BenchVocabulary
import NIOCore
import NIOSSL
import Synchronization

/// What every connection of an `InterceptingProxy` shares: its configuration, the client
/// that reaches the real hosts, the certificates minted so far, and the exchange log.
/// Any thread; its state is behind locks.
final class InterceptServices: Sendable {
    let configuration: InterceptConfiguration
    /// Reaches the real hosts, their certificates checked (`upstreamCAFile` beside the
    /// system's store); redirects are the app's to follow, never followed here.
    let client: HTTPClient
    private let sink: (@Sendable (OriginRequestRecord) -> Void)?
    private let began: (@Sendable (OriginRequestRecord) -> Void)?
    private let state: Mutex<State>

    private struct State {
        var connections: UInt64 = 0
        var contexts: [String: NIOSSLContext] = [:]
        var log: [OriginRequestRecord] = []
        var interfaces: [String: String]
    }

    /// `group`: the proxy's own event loops, which the client shares, so that each
    /// exchange runs on its app connection's loop, upstream connection included.
    init(
        configuration: InterceptConfiguration, group: any EventLoopGroup,
        sink: (@Sendable (OriginRequestRecord) -> Void)?, began: (@Sendable (OriginRequestRecord) -> Void)?
    ) {
        self.configuration = configuration
        self.sink = sink
        self.began = began
        state = Mutex(State(interfaces: configuration.interfaces))
        var settings = HTTPClient.Configuration()
        settings.redirectConfiguration = .disallow
        settings.decompression = .disabled
        settings.timeout = HTTPClient.Configuration.Timeout(
            connect: .nanoseconds(Int64(clamping: configuration.upstreamConnectTimeout.nanoseconds)),
            read: .nanoseconds(Int64(clamping: configuration.upstreamReadTimeout.nanoseconds)))
        // A refused or unreachable host is answered 502 at once, not after retries.
        settings.connectionPool.retryConnectionEstablishment = false
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        if let file = configuration.upstreamCAFile { tls.additionalTrustRoots = [.file(file)] }
        settings.tlsConfiguration = tls
        client = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: settings)
    }

    /// The next connection's number, from 1.
    func nextConnectionID() -> UInt64 {
        state.withLock { state in
            state.connections += 1
            return configuration.firstConnectionID + state.connections - 1
        }
    }

    /// The server side of TLS for `host`, its certificate minted on first use.
    func tlsContext(for host: String) throws -> NIOSSLContext {
        if let known = state.withLock({ $0.contexts[host] }) { return known }
        let made = try configuration.authority.leafContext(for: host)
        return state.withLock { state in
            if let known = state.contexts[host] { return known }
            state.contexts[host] = made
            return made
        }
    }

    /// Which interface a PROXY header's destination is (read as each connection opens).
    var interfaces: [String: String] {
        get { state.withLock { $0.interfaces } }
        set { state.withLock { $0.interfaces = newValue } }
    }

    /// An exchange's answer began (its head is on its way to the app): `record` as it
    /// will be logged, with no body yet, handed to the `began` observer.
    func responseStarted(_ record: OriginRequestRecord) {
        began?(record)
    }

    /// Appends an exchange to the log and hands it to the sink.
    func record(_ record: OriginRequestRecord) {
        state.withLock { $0.log.append(record) }
        sink?(record)
    }

    /// Every exchange so far, in the order they ended.
    var log: [OriginRequestRecord] { state.withLock { $0.log } }

    func shutdown() async throws {
        try await client.shutdown()
    }
}
