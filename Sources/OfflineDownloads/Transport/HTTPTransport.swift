import AsyncHTTPClient
import BenchCore
import Foundation
import Synchronization
import NIOCore
import NIOHTTP1
import NIOPosix

/// Timeouts of the engine's HTTP client.
public struct TransportConfiguration: Sendable, Hashable {
    /// Longest wait for a TCP connection. Default 5 s.
    public var connectTimeout: Duration
    /// Longest wait for the response head once connected. Default 20 s.
    public var headTimeout: Duration
    /// Longest time with no bytes arriving, head or body: past it the transfer is
    /// `stalled` even if the path says the network is fine. Default 8 s.
    public var stallTimeout: Duration
    /// Largest body read into memory (playlists, catalog JSON, licenses). Default 8 MiB.
    public var maximumInMemoryBody: Int
    /// The PEM file of the certificate authorities an HTTPS server's certificate must
    /// chain to, in place of the system's trust roots (a test bench's CA made for its
    /// run); verification stays on. nil (default): the system's.
    public var trustedCAFile: String?

    /// Creates a configuration; every field has a default.
    public init(
        connectTimeout: Duration = .seconds(5), headTimeout: Duration = .seconds(20), stallTimeout: Duration = .seconds(8),
        maximumInMemoryBody: Int = 8 << 20, trustedCAFile: String? = nil
    ) {
        self.trustedCAFile = trustedCAFile
        self.connectTimeout = connectTimeout
        self.headTimeout = headTimeout
        self.stallTimeout = stallTimeout
        self.maximumInMemoryBody = maximumInMemoryBody
    }
}

/// An answer read whole into memory.
public struct HTTPAnswer: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
}

/// The engine's HTTP/1.1 client (AsyncHTTPClient), sending each request over the
/// interface the engine chose (see `NetworkPathProvider` for what that means here).
public final class HTTPTransport: Sendable {
    /// The timeouts in force.
    public let configuration: TransportConfiguration
    let client: HTTPClient
    private let isShutDown = Mutex(false)

    /// A client on NIO's shared event loops.
    public init(configuration: TransportConfiguration = TransportConfiguration()) {
        self.configuration = configuration
        var settings = HTTPClient.Configuration()
        settings.timeout = HTTPClient.Configuration.Timeout(
            connect: .nanoseconds(Int64(clamping: configuration.connectTimeout.nanoseconds)),
            read: .nanoseconds(Int64(clamping: configuration.stallTimeout.nanoseconds)))
        settings.redirectConfiguration = .follow(max: 5, allowCycles: false)
        settings.decompression = .disabled
        settings.connectionPool = .init(idleTimeout: .seconds(30))
        // A refused or failed connect fails the request at once. AsyncHTTPClient would
        // otherwise retry the connect on its own, with a backoff of 100 ms × 1.25ⁿ up to
        // a minute that grows across requests and resets only on a successful connect:
        // a hidden second retry policy that hammers a refused port (~9 connects per
        // request within the connect timeout) and, once the network is back, keeps new
        // requests waiting behind a connect that is still backing off. The engine's own
        // `RetryBackoff` is the only retry policy.
        settings.connectionPool.retryConnectionEstablishment = false
        if let ca = configuration.trustedCAFile {
            // Full verification (the default), against this CA alone.
            settings.tlsConfiguration = .makeClientConfiguration()
            settings.tlsConfiguration?.trustRoots = .file(ca)
        }
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: settings)
    }

    /// Closes every connection. Call once, before dropping the transport.
    public func shutdown() async throws {
        isShutDown.withLock { $0 = true }
        try await client.shutdown()
    }

    /// A transport dropped without `shutdown()` (its owner failed on the way, or a
    /// transfer outlived the manager) closes its client itself rather than let
    /// AsyncHTTPClient stop the process for a client that was never shut down.
    deinit {
        guard !isShutDown.withLock({ $0 }) else { return }
        client.shutdown().whenComplete { _ in }
    }

    /// `url` as sent over `interface`: the path and query of `url`, to the interface's
    /// endpoint (unchanged when the endpoint is empty).
    public static func route(_ url: URL, via interface: PathInterface?) -> String {
        guard let interface, !interface.endpoint.isEmpty,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        else { return url.absoluteString }
        let parts = interface.endpoint.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let port = Int(parts[1]) else { return url.absoluteString }
        components.host = String(parts[0])
        components.port = port
        return components.string ?? url.absoluteString
    }

    /// A request for `url` sent over `interface`, keeping `url`'s authority as `Host`.
    static func request(_ url: URL, via interface: PathInterface?) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: route(url, via: interface))
        if let host = url.host { request.headers.replaceOrAdd(name: "Host", value: url.port.map { "\(host):\($0)" } ?? host) }
        return request
    }

    /// A whole answer (any status) to a GET, or to a POST of `body`, unless it is a
    /// captive portal's (`CaptivePortal.check`: 511, or a 2xx web page): nothing the
    /// engine reads into memory (playlists, catalog entries, certificates, licenses) is
    /// a web page, so that answer throws `.captivePortal` and its body is not read.
    public func fetch(
        _ url: URL, via interface: PathInterface?, method: HTTPMethod = .GET, body: [UInt8]? = nil,
        contentType: String? = nil
    ) async throws(TransportError) -> HTTPAnswer {
        var request = Self.request(url, via: interface)
        request.method = method
        if let body {
            request.body = .bytes(body)
            if let contentType { request.headers.replaceOrAdd(name: "Content-Type", value: contentType) }
        }
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(Int64(clamping: configuration.headTimeout.nanoseconds)))
            if let portal = CaptivePortal.check(
                status: Int(response.status.code), headers: response.headers, for: "\(method.rawValue) \(url.path)")
            {
                throw portal
            }
            var collected: [UInt8] = []
            for try await chunk in response.body {
                guard collected.count + chunk.readableBytes <= configuration.maximumInMemoryBody else {
                    throw TransportError.invalidResponse("body of \(url.path) is over \(configuration.maximumInMemoryBody) bytes")
                }
                collected += chunk.readableBytesView
            }
            return HTTPAnswer(status: Int(response.status.code), headers: response.headers, body: collected)
        } catch {
            throw Self.classify(error)
        }
    }

    /// Maps what AsyncHTTPClient and NIO throw to what the engine does about it.
    static func classify(_ error: any Error) -> TransportError {
        if let error = error as? TransportError { return error }
        if error is CancellationError { return .canceled }
        if let error = error as? HTTPClientError {
            switch error {
            case .readTimeout: return .stalled
            case .connectTimeout, .deadlineExceeded: return .unreachable("\(error)")
            case .cancelled: return .canceled
            case .remoteConnectionClosed: return .interrupted("the server closed the connection")
            default: return .interrupted("\(error)")
            }
        }
        if error is NIOConnectionError { return .unreachable("\(error)") }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNREFUSED, ENETUNREACH, EHOSTUNREACH, ETIMEDOUT: return .unreachable("\(error)")
            default: return .interrupted("\(error)")
            }
        }
        return .interrupted("\(error)")
    }
}
