import BenchCore
#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOHTTP1

/// The last handler of an origin connection: collects each request (body bounded),
/// asks `OriginRouter` for a `ResponsePlan`, carries it out — delays, cuts and stalls
/// included — and logs one `OriginRequestRecord` per response.
///
/// Not `Sendable`: lives on its channel's event loop; scheduled work uses
/// `assumeIsolated()` and is cancelled when the channel goes away.
final class OriginHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The response being sent, for its log record.
    private struct InFlight {
        var method: String
        var uri: String
        var range: String?
        var status: Int
        var startedAt: UInt64
        var timeToFirstByte: UInt64?
        var bytesSent = 0
        var faultRuleID: String?
    }

    private let services: OriginServices
    private let router: OriginRouter
    private let info: ConnectionInfo
    private let deadline: RequestDeadlineHandler
    /// The request being received; nil between requests and while a rejected body drains.
    private var request: OriginRequest?
    private var version = HTTPVersion.http1_1
    private var keepAlive = true
    private var startedAt: UInt64 = 0
    private var inFlight: InFlight?
    /// A request whose content is being looked up (a segment being made).
    private var awaitingContent = false
    private var scheduled: Scheduled<Void>?

    init(services: OriginServices, info: ConnectionInfo, deadline: RequestDeadlineHandler) {
        self.services = services
        self.router = OriginRouter(services: services)
        self.info = info
        self.deadline = deadline
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(var head):
            head.uri = OriginRequest.originForm(head.uri)  // a forward proxy's client writes the absolute-form
            if services.configuration.requiresProxyHeader, info.proxy == nil {
                return refuseDirect(head, context: context)
            }
            deadline.requestHeadReceived()
            startedAt = services.clock.nowNanoseconds
            version = head.version
            keepAlive = head.isKeepAlive
            let incoming = OriginRequest(method: head.method, uri: head.uri, headers: head.headers, body: [])
            request = incoming
            if let declared = head.headers.first(name: "Content-Length").flatMap(Int.init),
                declared > services.configuration.maximumRequestBodyBytes
            {
                reject(incoming, context: context)
            }
        case .body(var chunk):
            guard var incoming = request else { return }  // draining a rejected body
            guard incoming.body.count + chunk.readableBytes <= services.configuration.maximumRequestBodyBytes else {
                return reject(incoming, context: context)
            }
            incoming.body += chunk.readBytes(length: chunk.readableBytes) ?? []
            request = incoming
        case .end:
            deadline.requestEnded()
            guard let incoming = request else { return }
            request = nil
            let decision =
                router.isControl(incoming) ? nil : services.decideFault(method: incoming.method.rawValue, path: incoming.uri)
            guard router.needsContent(incoming) else {
                return start(router.plan(for: incoming, decision: decision), for: incoming, context: context)
            }
            awaitingContent = true
            services.lookup(path: incoming.path, on: context.eventLoop).assumeIsolated().whenSuccess { content in
                self.awaitingContent = false
                // If the client left meanwhile, `send` logs the request as not completed.
                self.start(self.router.plan(for: incoming, decision: decision, content: content), for: incoming, context: context)
            }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is RequestDeadlineHandler.RequestDeadlineExpired { return timeOut(context: context) }
        guard let idle = event as? IdleStateHandler.IdleStateEvent else { return context.fireUserInboundEventTriggered(event) }
        // A response in progress (delayed or stalled on purpose) keeps the connection.
        if idle == .read, inFlight == nil, request == nil, !awaitingContent { context.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        scheduled?.cancel()
        scheduled = nil
        finish(completed: false)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        scheduled?.cancel()
        scheduled = nil
    }

    /// NIO's protocol-error handler, before this one, has already answered a request it
    /// could not parse with 400 and is closing; it is logged here so that garbage shows
    /// up in the request log like any other request. A parse error after this handler
    /// chose to close (an unfinished body cut off by a 408 or 413) is not logged again.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError, inFlight == nil, !info.closing {
            let now = services.clock.nowNanoseconds
            services.record(
                OriginRequestRecord(
                    connectionID: info.id, interface: info.interface, proxySource: info.proxy?.source?.description,
                    method: request?.method.rawValue ?? "-", path: request?.uri ?? "-", range: nil, status: 400,
                    bytesSent: 0, startedAtNanoseconds: now, timeToFirstByteNanoseconds: nil, durationNanoseconds: 0,
                    faultRuleID: nil, completed: false))
            request = nil
        }
        context.close(promise: nil)
    }

    /// A request that did not come through the link conditioner, while the origin
    /// requires it: logged with its rejection, then the connection is reset (SO_LINGER 0)
    /// with no answer. A reset is what a client sees of a path that does not work; an
    /// HTTP status would tell a well-behaved client to give up on the resource.
    private func refuseDirect(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let now = services.clock.nowNanoseconds
        services.record(
            OriginRequestRecord(
                connectionID: info.id, interface: nil, proxySource: nil, method: head.method.rawValue, path: head.uri,
                range: head.headers.first(name: "Range"), status: 0, bytesSent: 0, startedAtNanoseconds: now,
                timeToFirstByteNanoseconds: nil, durationNanoseconds: 0, faultRuleID: nil, completed: false,
                rejection: "no PROXY header: the request did not come through the link conditioner"))
        info.closing = true
        request = nil
        guard let socket = context.channel as? SocketOptionProvider else { return context.close(promise: nil) }
        socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    /// The request head came but not the rest, in time: 408 and close (logged like any
    /// answer). Nothing else can be in progress: the deadline is paused during responses.
    private func timeOut(context: ChannelHandlerContext) {
        guard let incoming = request, inFlight == nil, !awaitingContent else { return context.close(promise: nil) }
        request = nil
        router.noteRejection(incoming, status: 408, reason: "the request did not arrive in full in time")
        var plan = ResponsePlan.error(.requestTimeout, "Request Timeout: the request did not arrive in full in time")
        plan.closeAfter = true
        start(plan, for: incoming, context: context)
    }

    /// 413 now, then close; the rest of the body is ignored.
    private func reject(_ incoming: OriginRequest, context: ChannelHandlerContext) {
        request = nil
        router.noteRejection(
            incoming, status: 413,
            reason: "body larger than \(services.configuration.maximumRequestBodyBytes) bytes")
        var plan = ResponsePlan.error(.payloadTooLarge)
        plan.closeAfter = true
        start(plan, for: incoming, context: context)
    }

    private func start(_ plan: ResponsePlan, for request: OriginRequest, context: ChannelHandlerContext) {
        var plan = plan
        if request.isHead { plan.body = [] }
        plan.closeAfter = plan.closeAfter || !keepAlive
        if plan.closeAfter { info.closing = true }
        if case .cut = plan.delivery { info.closing = true }
        if plan.closeAfter {
            plan.headers.replaceOrAdd(name: "Connection", value: "close")
        } else if version == .http1_0 {
            plan.headers.replaceOrAdd(name: "Connection", value: "keep-alive")
        }
        inFlight = InFlight(
            method: request.method.rawValue, uri: request.uri, range: request.headers.first(name: "Range"),
            status: Int(plan.status.code), startedAt: startedAt, faultRuleID: plan.faultRuleID)
        services.responseStarted(
            OriginRequestRecord(
                connectionID: info.id, interface: info.interface, proxySource: info.proxy?.source?.description,
                method: request.method.rawValue, path: request.uri, range: request.headers.first(name: "Range"),
                status: Int(plan.status.code), bytesSent: 0, startedAtNanoseconds: startedAt,
                timeToFirstByteNanoseconds: nil, durationNanoseconds: 0, faultRuleID: plan.faultRuleID, completed: false))
        guard let delay = plan.delay else { return send(plan, context: context) }
        scheduled = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(clamping: delay.nanoseconds))) {
            self.scheduled = nil
            self.send(plan, context: context)
        }
    }

    private func send(_ plan: ResponsePlan, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return finish(completed: false) }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: plan.status, headers: plan.headers))),
                      promise: nil)
        inFlight?.timeToFirstByte = services.clock.nowNanoseconds &- startedAt
        switch plan.delivery {
        case .whole:
            writeBody(plan.body[...], context: context)
            end(context: context, close: plan.closeAfter)
        case .cut(let afterBytes):
            writeBody(plan.body.prefix(afterBytes), context: context)
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(ByteBuffer()))))
                .assumeIsolated().whenComplete { _ in
                    self.finish(completed: false)
                    context.close(promise: nil)
                }
        case .stall(let afterBytes, let duration):
            writeBody(plan.body.prefix(afterBytes), context: context)
            context.flush()
            guard let duration else { return }  // nothing more until the client gives up
            let rest = plan.body.dropFirst(afterBytes)
            scheduled = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(clamping: duration.nanoseconds))) {
                self.scheduled = nil
                guard context.channel.isActive else { return self.finish(completed: false) }
                self.writeBody(rest, context: context)
                self.end(context: context, close: plan.closeAfter)
            }
        }
    }

    private func writeBody(_ bytes: ArraySlice<UInt8>, context: ChannelHandlerContext) {
        guard !bytes.isEmpty else { return }
        let buffer = context.channel.allocator.buffer(bytes: bytes)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        inFlight?.bytesSent += bytes.count
    }

    private func end(context: ChannelHandlerContext, close: Bool) {
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { result in
            if case .success = result { self.finish(completed: true) } else { self.finish(completed: false) }
            self.deadline.responseEnded()
            if close { context.close(promise: nil) }
        }
    }

    /// Logs the response in flight, once.
    private func finish(completed: Bool) {
        guard let done = inFlight else { return }
        inFlight = nil
        services.record(
            OriginRequestRecord(
                connectionID: info.id, interface: info.interface, proxySource: info.proxy?.source?.description,
                method: done.method, path: done.uri, range: done.range, status: done.status, bytesSent: done.bytesSent,
                startedAtNanoseconds: done.startedAt, timeToFirstByteNanoseconds: done.timeToFirstByte,
                durationNanoseconds: services.clock.nowNanoseconds &- done.startedAt, faultRuleID: done.faultRuleID,
                completed: completed))
    }
}
