import AsyncHTTPClient
import BenchVocabulary
import NIOCore
import NIOHTTP1

/// The HTTP/1.1 side of an intercepted connection: each request the app sends (inside
/// the TLS the proxy answered, or plain) is forwarded to the real origin, one at a time in
/// the order they came, and its answer streamed back as it arrives; each exchange becomes
/// one `OriginRequestRecord` (`ExchangeDelegate`). Runs on the channel's event loop.
final class InterceptExchangeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// A request read whole, waiting for its turn.
    struct Request {
        var head: HTTPRequestHead
        var body: ByteBuffer
        var startedAt: UInt64
    }

    private let origin: InterceptedOrigin
    private let info: ConnectionInfo
    private let services: InterceptServices
    private var context: ChannelHandlerContext?
    private var reading: Request?
    private var waiting: [Request] = []
    private var busy = false
    private var closed = false

    init(origin: InterceptedOrigin, info: ConnectionInfo, services: InterceptServices) {
        self.origin = origin
        self.info = info
        self.services = services
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        closed = true
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            reading = Request(head: head, body: context.channel.allocator.buffer(capacity: 0),
                              startedAt: services.configuration.clock.nowNanoseconds)
        case .body(var part):
            reading?.body.writeBuffer(&part)
        case .end:
            guard let request = reading else { return }
            reading = nil
            waiting.append(request)
            startNext()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed = true
        context.fireChannelInactive()
    }

    /// Forwards the first request waiting, unless one is under way.
    private func startNext() {
        guard !busy, !closed, let context, !waiting.isEmpty else { return }
        busy = true
        let request = waiting.removeFirst()
        let closeAfter = origin.scheme == "http" || !request.head.isKeepAlive
        let exchange = ExchangeDelegate(
            request: request, origin: origin, path: Self.originForm(request.head.uri, of: origin),
            connection: (info.id, info.interface, info.proxy?.source?.description), closeAfter: closeAfter,
            channel: context.channel, services: services
        ) { [weak self] keepOpen in
            guard let self else { return }
            self.busy = false
            if keepOpen { self.startNext() } else { self.closed = true }
        }
        exchange.start()
    }

    /// The target in origin-form: an absolute-form URL's path and query (`/` when empty).
    static func originForm(_ uri: String, of origin: InterceptedOrigin) -> String {
        guard uri.lowercased().hasPrefix("http://") || uri.lowercased().hasPrefix("https://") else { return uri }
        let afterScheme = uri[uri.range(of: "://")!.upperBound...]
        let path = afterScheme.drop { $0 != "/" && $0 != "?" }
        return path.isEmpty ? "/" : path.hasPrefix("?") ? "/" + path : String(path)
    }
}
