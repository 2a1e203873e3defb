import NIOCore
import NIOHTTP1
import NIOPosix

/// The control API's HTTP server (`bench proxy --api`): binds loopback unless told
/// otherwise, and then only with a token, checked on every request. Any thread.
public final class ControlServer: Sendable {
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    /// Where it listens, the port resolved.
    public let host: String
    public let port: Int

    /// Binds `host:port` (port 0 picks one) and answers with `router`.
    /// - Parameter token: required on every request when set: `Authorization: Bearer TOKEN`,
    ///   `X-Deadzone-Token: TOKEN`, or HTTP Basic with the token as the password (what a
    ///   client given `http://user:TOKEN@host:port` sends).
    /// - Throws: `ControlServerError.remoteWithoutToken` for a host beyond loopback with no token.
    public static func start(host: String, port: Int, token: String?, router: ControlRouter) async throws -> ControlServer {
        guard token != nil || isLoopback(host) else { throw ControlServerError.remoteWithoutToken(host) }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let inFlight = InFlightAnswers()
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline(withErrorHandling: true).flatMap {
                    channel.pipeline.addHandler(ControlRequestHandler(router: router, token: token, inFlight: inFlight))
                }
            }
        do {
            let channel = try await bootstrap.bind(host: host, port: port).get()
            return ControlServer(group: group, channel: channel, host: host, inFlight: inFlight)
        } catch {
            try? await group.shutdownGracefully()
            throw ControlServerError.cannotBind("\(host):\(port)", "\(error)")
        }
    }

    private let inFlight: InFlightAnswers

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel, host: String, inFlight: InFlightAnswers) {
        self.inFlight = inFlight
        self.group = group
        self.channel = channel
        self.host = host
        port = channel.localAddress?.port ?? 0
    }

    /// `http://host:port`.
    public var url: String { host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)" }

    /// Stops listening, waits (at most 5 s) for the answers begun to be written, and
    /// closes every connection. Call once.
    public func stop() async {
        try? await channel.close()
        await inFlight.drained(within: .seconds(5))
        try? await group.shutdownGracefully()
    }

    /// Whether `host` is a loopback address (127.0.0.0/8, ::1, localhost).
    public static func isLoopback(_ host: String) -> Bool {
        host.hasPrefix("127.") || host == "::1" || host == "localhost"
    }
}

/// Why the control API did not start.
public enum ControlServerError: Error, CustomStringConvertible {
    case remoteWithoutToken(String)
    case cannotBind(String, String)

    public var description: String {
        switch self {
        case .remoteWithoutToken(let host):
            "the control API on \(host) would be reachable beyond this machine: give --api-token TOKEN (checked on every request), or bind 127.0.0.1"
        case let .cannotBind(address, reason):
            "the control API cannot listen on \(address): \(reason)"
        }
    }
}
