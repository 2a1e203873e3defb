import Foundation
import NIOCore
import NIOHTTP1

/// One connection of the control API: collects each request (up to 1 MiB of body),
/// checks the token, hands it to the router off the event loop and writes its answer;
/// or, for `GET /deadzone/events`, streams the run's events until the client goes
/// (`EventStreamWriter`). Event-loop confined.
final class ControlRequestHandler: ChannelInboundHandler, @unchecked Sendable {
    // @unchecked: every property is touched on the channel's event loop only.
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    static let bodyLimit = 1 << 20

    private let router: ControlRouter
    private let token: String?
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []
    private var tooLarge = false
    /// The event stream this connection carries, once it asked for one.
    private var stream: EventStreamWriter?

    private let inFlight: InFlightAnswers

    init(router: ControlRouter, token: String?, inFlight: InFlightAnswers) {
        self.router = router
        self.token = token
        self.inFlight = inFlight
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            head = request
            body = []
            tooLarge = false
        case .body(var chunk):
            if body.count + chunk.readableBytes > Self.bodyLimit { tooLarge = true } else if !tooLarge {
                body += chunk.readBytes(length: chunk.readableBytes) ?? []
            }
        case .end:
            guard let request = head, stream == nil else { return }  // a stream answers nothing more
            head = nil
            answer(request, context: context)
        }
    }

    private func answer(_ request: HTTPRequestHead, context: ChannelHandlerContext) {
        let keepAlive = request.isKeepAlive
        if tooLarge {
            return write(.error(APIError(413, "the request body is over 1 MiB")), keepAlive: false, context: context)
        }
        if let token, !Self.authorized(request.headers, token: token) {
            return write(.error(APIError(401, "this API needs its token: Authorization: Bearer TOKEN, X-Deadzone-Token: TOKEN, "
                + "or http://user:TOKEN@host:port")), keepAlive: keepAlive, context: context)
        }
        if let asked = router.eventStream(method: request.method.rawValue, target: request.uri,
                                          accept: request.headers.first(name: "Accept"),
                                          lastEventID: request.headers.first(name: "Last-Event-ID")) {
            return startStream(asked, context: context)
        }
        // What must happen at once happens here, on the event loop; the answer is awaited.
        let finish = router.prepare(method: request.method.rawValue, target: request.uri, body: body)
        let loop = context.eventLoop
        let bound = NIOLoopBound((self, context), eventLoop: loop)
        let inFlight = inFlight
        inFlight.begin()
        Task {
            let response = await finish()
            loop.execute {
                let (handler, context) = bound.value
                handler.send(response, keepAlive: keepAlive, context: context).whenComplete { _ in inFlight.end() }
            }
        }
    }

    private func startStream(_ asked: Result<ControlRouter.EventStreamRequest, APIError>, context: ChannelHandlerContext) {
        let request: ControlRouter.EventStreamRequest
        switch asked {
        case .failure(let error): return write(.error(error), keepAlive: false, context: context)
        case .success(let value): request = value
        }
        guard router.deadzone.isAttached else {
            return write(.error(DeadzoneService.noInterfaces), keepAlive: false, context: context)
        }
        let writer = EventStreamWriter(serverSent: request.serverSent, context: context)
        do {
            // The kept events hop to this loop and are written after the head below.
            let loop = context.eventLoop
            let bound = NIOLoopBound(writer, eventLoop: loop)
            writer.subscription = try router.deadzone.feed.subscribe(from: request.from) { batch in
                loop.execute { bound.value.send(batch) }
            }
        } catch {
            return write(.error(error), keepAlive: false, context: context)
        }
        writer.feed = router.deadzone.feed
        stream = writer
        writer.start()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stream?.finish()
        context.fireChannelInactive()
    }

    private func write(_ response: APIResponse, keepAlive: Bool, context: ChannelHandlerContext) {
        _ = send(response, keepAlive: keepAlive, context: context)
    }

    /// Writes `response`; the future completes once its end is written.
    private func send(_ response: APIResponse, keepAlive: Bool, context: ChannelHandlerContext) -> EventLoopFuture<Void> {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: response.contentType)
        headers.add(name: "Content-Length", value: String(response.body.count))
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let status = HTTPResponseStatus(statusCode: response.status)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        if !response.body.isEmpty {
            var buffer = context.channel.allocator.buffer(capacity: response.body.count)
            buffer.writeBytes(response.body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive { done.whenComplete { _ in context.close(promise: nil) } }
        return done
    }

    /// Whether `headers` carry `token` (compared in constant time).
    static func authorized(_ headers: HTTPHeaders, token: String) -> Bool {
        var offered: [String] = headers["X-Deadzone-Token"]
        for value in headers["Authorization"] {
            if value.hasPrefix("Bearer ") { offered.append(String(value.dropFirst(7))) }
            if value.hasPrefix("Basic "), let data = Data(base64Encoded: String(value.dropFirst(6))),
               let pair = String(data: data, encoding: .utf8), let colon = pair.firstIndex(of: ":") {
                offered.append(String(pair[pair.index(after: colon)...]))
            }
        }
        return offered.contains { equalInConstantTime($0, token) }
    }

    private static func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}
