import BenchCore
import NIOCore
import NIOHTTP1
import NIOSSL

/// The first handler of an intercepted connection after its PROXY line: reads the first
/// request's head and sets the rest of the pipeline up for it, then leaves.
///
/// - `CONNECT host:port` for an intercepted host: answered 200, then TLS with a
///   certificate for `host` minted from the run's CA, and HTTP/1.1 inside
///   (`InterceptExchangeHandler`, scheme `https`).
/// - An absolute-form `http://host[:port]/…` request for an intercepted host: HTTP/1.1
///   from this request on (scheme `http`), each answer with `Connection: close`, so that a
///   request for another host comes on a new connection.
/// - Anything else is answered 400 (not a proxy's request) or 403 (a host not
///   intercepted: only named hosts are) and the connection closed.
///
/// Runs on the channel's event loop, inside a `ByteToMessageHandler`.
struct InterceptRequestReader: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// The longest request head read before it is refused.
    static let maximumHead = 8 * 1024
    private static let headEnd = Array("\r\n\r\n".utf8)

    let info: ConnectionInfo
    let services: InterceptServices
    private var done = false

    init(info: ConnectionInfo, services: InterceptServices) {
        self.info = info
        self.services = services
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard !done else { return forward(context: context, buffer: &buffer) }
        let view = buffer.readableBytesView
        guard let end = Self.headEndIndex(in: view) else {
            if view.count > Self.maximumHead { refuse(context, "400 Bad Request", "a request head longer than \(Self.maximumHead) bytes") }
            return .needMoreData
        }
        let headLength = end - view.startIndex + Self.headEnd.count
        let line = String(decoding: view[view.startIndex..<(view.firstIndex(of: UInt8(ascii: "\r")) ?? end)], as: UTF8.self)
        let parts = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else {
            refuse(context, "400 Bad Request", "a request line that is not `METHOD target HTTP/1.1`: \(line.prefix(200))")
            return .needMoreData
        }
        switch Self.target(method: parts[0], uri: parts[1]) {
        case .failure(let why):
            refuse(context, "400 Bad Request", why.description)
        case .success(let (scheme, host, port)):
            guard services.configuration.rules.intercepts(host: host, port: port) else {
                refuse(context, "403 Forbidden", "\(host):\(port) is not a host this proxy intercepts (--intercept names them)")
                return .needMoreData
            }
            let origin = InterceptedOrigin(scheme: scheme, host: host, port: port)
            do {
                if scheme == "https" {
                    buffer.moveReaderIndex(forwardBy: headLength)  // the CONNECT head is this proxy's
                    let tls = try services.tlsContext(for: host)
                    context.writeAndFlush(NIOAny(ByteBuffer(string: "HTTP/1.1 200 Connection established\r\n\r\n")), promise: nil)
                    try context.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
                }
                try context.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: true)
                try context.pipeline.syncOperations.addHandler(InterceptExchangeHandler(origin: origin, info: info, services: services))
            } catch {
                refuse(context, "500 Internal Server Error", "cannot intercept \(host):\(port): \(error)")
                return .needMoreData
            }
            done = true
            _ = forward(context: context, buffer: &buffer)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
        return .needMoreData
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        if done { return forward(context: context, buffer: &buffer) }
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }

    /// Where a proxy request asks to go: a CONNECT's `host:port` (scheme `https`), or an
    /// absolute-form `http://` URL's host and port (80 by default).
    static func target(method: String, uri: String) -> Result<(String, String, UInt16), TargetError> {
        if method == "CONNECT" {
            guard let (host, port) = authority(uri) else {
                return .failure(TargetError("a CONNECT target that is not host:port: \(uri.prefix(200))"))
            }
            return .success(("https", host, port))
        }
        guard uri.lowercased().hasPrefix("http://") else {
            return .failure(TargetError("a request for \(uri.prefix(200)): an intercepting proxy takes CONNECT host:port "
                + "or an absolute-form http:// URL"))
        }
        let rest = uri.dropFirst("http://".count)
        var hostPort = String(rest.prefix { $0 != "/" && $0 != "?" })
        if let at = hostPort.lastIndex(of: "@") { hostPort = String(hostPort[hostPort.index(after: at)...]) }
        if let (host, port) = authority(hostPort) { return .success(("http", host, port)) }
        guard let (host, port) = authority(hostPort + ":80") else {
            return .failure(TargetError("a URL whose host is not host[:port]: \(uri.prefix(200))"))
        }
        return .success(("http", host, port))
    }

    /// Why a request names no target.
    struct TargetError: Error {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// `host:port` split (`HostPort.split`), the brackets of an IPv6 host dropped; nil otherwise.
    static func authority(_ text: String) -> (String, UInt16)? {
        guard let (host, port) = HostPort.split(text) else { return nil }
        return (host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port)
    }

    private static func headEndIndex(in view: ByteBufferView) -> Int? {
        guard view.count >= headEnd.count else { return nil }
        var index = view.startIndex
        while index <= view.endIndex - headEnd.count {
            if view[index] == headEnd[0], view[index..<(index + headEnd.count)].elementsEqual(headEnd) { return index }
            index += 1
        }
        return nil
    }

    private func forward(context: ChannelHandlerContext, buffer: inout ByteBuffer) -> DecodingState {
        if buffer.readableBytes > 0, let rest = buffer.readSlice(length: buffer.readableBytes) {
            context.fireChannelRead(NIOAny(rest))
        }
        return .needMoreData
    }

    /// Answers `status` with `why` as its body and closes; nothing goes upstream.
    private mutating func refuse(_ context: ChannelHandlerContext, _ status: String, _ why: String) {
        done = true
        let body = why + "\n"
        let response = "HTTP/1.1 \(status)\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        let channel = context.channel
        context.writeAndFlush(NIOAny(ByteBuffer(string: response))).whenComplete { _ in channel.close(promise: nil) }
    }
}

/// The real origin an intercepted connection's requests go to.
struct InterceptedOrigin: Sendable, Hashable, CustomStringConvertible {
    let scheme: String
    let host: String
    let port: UInt16
    /// `https://host:port`, IPv6 in brackets.
    var description: String { "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
}
