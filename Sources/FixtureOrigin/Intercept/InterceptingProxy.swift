import BenchCore
import BenchVocabulary
import NIOCore
import NIOPosix

/// An intercepting forward proxy for the hosts a run names (`--intercept`): the HTTP
/// forward proxy of the conditioner's interfaces hands it each connection whose first
/// request names one of them, after a PROXY v1 line naming the app and the interface.
/// A CONNECT is answered 200 and then TLS with a certificate for the host minted from the
/// run's CA; every request inside (or an absolute-form `http://` request) is forwarded to
/// the real host over TLS, its certificate checked, and its answer streamed back. Each
/// exchange is an `OriginRequestRecord` as the fixture origin's log keeps them, with the
/// real origin, the SHA-256 of the body delivered, and the interface it came through, so
/// that the judge reads an outside origin as it reads its own.
///
/// It can also be used alone as an HTTP proxy (a connection with no PROXY line has no
/// interface). Any thread.
public final class InterceptingProxy: Sendable {
    private let services: InterceptServices
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    /// The port it listens on.
    public let port: Int

    /// Binds and starts answering.
    /// - Parameters:
    ///   - sink: called with every exchange's record as it ends, on an event-loop thread;
    ///     must be quick and must not block.
    ///   - began: called as each answer begins, with the record it will end as (no body
    ///     yet, not completed): a live view of the exchanges in progress, as the fixture
    ///     origin's `responsesInProgress`. Same rules as `sink`.
    public static func start(
        configuration: InterceptConfiguration, sink: (@Sendable (OriginRequestRecord) -> Void)? = nil,
        began: (@Sendable (OriginRequestRecord) -> Void)? = nil
    ) async throws -> InterceptingProxy {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.threads))
        let services = InterceptServices(configuration: configuration, group: group, sink: sink, began: began)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let info = ConnectionInfo(id: services.nextConnectionID())
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(ByteToMessageHandler(
                        ProxyProtocolDecoder(info: info, interfaces: services.interfaces)))
                    try pipeline.addHandler(ByteToMessageHandler(InterceptRequestReader(info: info, services: services)))
                }
            }
        do {
            let channel = try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
            return InterceptingProxy(services: services, group: group, channel: channel)
        } catch {
            try? await services.shutdown()
            try? await group.shutdownGracefully()
            throw error
        }
    }

    private init(services: InterceptServices, group: MultiThreadedEventLoopGroup, channel: any Channel) {
        self.services = services
        self.group = group
        self.channel = channel
        port = channel.localAddress?.port ?? 0
    }

    /// Where it listens, `host:port`.
    public var address: String { "\(services.configuration.host):\(port)" }

    /// Names the interfaces by their listeners' `"host:port"` (the destination of a PROXY
    /// line), for the connections opened from now on: the conditioner's listeners are
    /// known only once it runs, and it needs this proxy's address to start.
    public func setInterfaces(_ interfaces: [String: String]) {
        services.interfaces = interfaces
    }

    /// Every exchange so far, in the order they ended.
    public var exchanges: [OriginRequestRecord] { services.log }

    /// Stops listening, closes every connection and releases its threads. Call once.
    public func stop() async throws {
        try? await channel.close()
        try await services.shutdown()
        try await group.shutdownGracefully()
    }
}
