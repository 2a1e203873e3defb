import BenchCore
import NIOCore
import NIOHTTP1
import NIOPosix

/// The fixture origin's HTTP/1.1 server (DESIGN.md §3): content, license endpoints, a
/// small control API, fault rules and a request log, over SwiftNIO.
///
/// The harness or a test calls `start(configuration:)`, reads `port`, drives the
/// license server and fault rules from any thread while it runs, then `stop()`s it.
/// `Sendable`: its stored parts are a NIO channel and event-loop group (thread-safe)
/// and `OriginServices` (every mutable part behind a `Mutex`).
///
/// Each connection's pipeline: PROXY v1 decoder (removes itself after the header) →
/// read-idle timer → request deadline (raw bytes; 408 for slow senders) → NIO's HTTP/1.1
/// server pipeline (keep-alive, pipelining, 400 on parse errors) → `OriginHTTPHandler`.
public final class OriginServer: Sendable {
    /// What the server was started with.
    public var configuration: OriginConfiguration { services.configuration }
    /// The content served (the same value the server reads from).
    public var store: ContentStore { services.store }
    /// The license server behind the license endpoints; the harness calls
    /// `setAppInBackground` on it (or `POST /_control/background`).
    public var licenseServer: LicenseServer { services.licenseServer }
    /// The address the server listens on.
    public let localAddress: SocketAddress
    /// The port the server listens on.
    public var port: Int { localAddress.port ?? 0 }

    private let services: OriginServices
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    private init(services: OriginServices, group: MultiThreadedEventLoopGroup, channel: any Channel) throws {
        guard let address = channel.localAddress else { throw ChannelError.unknownLocalAddress }
        self.services = services
        self.group = group
        self.channel = channel
        self.localAddress = address
    }

    /// Binds and starts serving.
    /// - Parameters:
    ///   - configuration: where to listen and what to serve.
    ///   - licenseServer: the license server to use; nil builds one over the catalog's keys
    ///     signed with `configuration.licenseSecret`.
    ///   - requestSink: called with every request record, on the connection's event-loop
    ///     thread, after it is appended to `requestLog`; must be quick and must not block.
    /// - Throws: when the address cannot be bound, or `ContentError` when real media is
    ///   configured and ffmpeg or the media cache directory is unusable.
    public static func start(
        configuration: OriginConfiguration, licenseServer: LicenseServer? = nil,
        requestSink: (@Sendable (OriginRequestRecord) -> Void)? = nil
    ) async throws -> OriginServer {
        let tls = try configuration.tls?.serverContext()
        let services = try OriginServices(
            configuration: configuration, licenseServer: licenseServer, sink: requestSink, tls: tls)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.threads))
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try configurePipeline(channel.pipeline.syncOperations, services: services)
                }
            }
        do {
            let channel = try await bootstrap.bind(host: configuration.host, port: configuration.port).get()
            return try OriginServer(services: services, group: group, channel: channel)
        } catch {
            try? await group.shutdownGracefully()
            try? await services.shutdown()
            throw error
        }
    }

    /// Stops listening, closes every connection and releases the event-loop threads.
    /// Call once, from any task.
    public func stop() async throws {
        try? await channel.close()
        try await group.shutdownGracefully()
        try await services.shutdown()
    }

    /// Replaces the fault rules live; the next request sees them. Any thread.
    public func setFaultRules(_ rules: FaultRuleSet) {
        services.setFaultRules(rules)
    }

    /// Changes the fault rules live, atomically: `change` gets the rules as they are and
    /// what it leaves is what the next request sees; nothing changes when it throws.
    /// Any thread; `change` runs under the rules' lock (keep it short, no I/O).
    public func updateFaultRules<T: Sendable>(
        _ change: (inout FaultRuleSet) throws(FaultRuleSetError) -> T
    ) throws(FaultRuleSetError) -> T {
        try services.updateFaultRules(change)
    }

        /// The fault rules now, with how often each has fired. Any thread.
    public var faultRules: FaultRuleSet { services.faultRules }

    /// An exchange the intercepting proxy (`InterceptingProxy`) began answering for an
    /// outside origin in this origin's run: listed in `responsesInProgress` until
    /// `interceptedResponseEnded` logs it, so that what the run's triggers and the disk
    /// witness read covers the outside origin as this one. Any thread.
    public func interceptedResponseStarted(_ record: OriginRequestRecord) {
        services.responseStarted(record)
    }

    /// An intercepted exchange ended: appended to `requestLog` (and handed to the sink).
    public func interceptedResponseEnded(_ record: OriginRequestRecord) {
        services.record(record)
    }

    /// Every request record so far, in the order responses ended. Any thread.
    public var requestLog: [OriginRequestRecord] { services.requestLog }

    /// The responses begun (head received, answer planned) and not yet ended, each as
    /// the record it will be logged as, with `bytesSent` 0, no durations and
    /// `completed` false. Any thread. Read it before `requestLog` to miss no response
    /// begun before the call: one leaves this list only after it is in the log.
    public var responsesInProgress: [OriginRequestRecord] { services.responsesInProgress }

    private static func configurePipeline(
        _ pipeline: ChannelPipeline.SynchronousOperations, services: OriginServices
    ) throws {
        let info = ConnectionInfo(id: services.nextConnectionID())
        let idle = services.configuration.idleTimeout
        try pipeline.addHandler(
            ByteToMessageHandler(ProxyProtocolDecoder(info: info, interfaces: services.configuration.interfaces)))
        if let tls = services.tls { try pipeline.addHandler(ByteToMessageHandler(TLSSniffer(tls: tls))) }
        try pipeline.addHandler(IdleStateHandler(readTimeout: .nanoseconds(Int64(clamping: idle.nanoseconds))))
        let deadline = RequestDeadlineHandler(services: services, info: info)
        try pipeline.addHandler(deadline)
        try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
        try pipeline.addHandler(OriginHTTPHandler(services: services, info: info, deadline: deadline))
    }
}
