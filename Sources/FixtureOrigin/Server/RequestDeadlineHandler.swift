import NIOCore

/// Cuts off slow senders: drives a `RequestDeadline` for one connection and, when a
/// request has not arrived in full within `OriginConfiguration.requestTimeout` of its
/// first byte, answers 408 and closes.
///
/// Sits before NIO's HTTP decoder so that it sees raw bytes (a client trickling a header
/// one byte at a time never produces a decoded part, and never lets the read-idle timer
/// fire). `OriginHTTPHandler` tells it about request heads, request ends and response ends.
/// When time runs out after the head was decoded, it sends `RequestDeadlineExpired` up the
/// pipeline so that the HTTP handler answers (and logs) the 408 with the request's method
/// and path; before that, it writes a bare 408 itself, logs it with method and path `-`, and
/// closes.
///
/// Not `Sendable`: made in the child channel initializer and used only on that channel's
/// event loop.
final class RequestDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The inbound user event that asks `OriginHTTPHandler` to answer 408 for the request
    /// whose head it holds.
    struct RequestDeadlineExpired {}

    private let services: OriginServices
    private let info: ConnectionInfo
    private var deadline: RequestDeadline
    private var context: ChannelHandlerContext?
    private var timer: Scheduled<Void>?
    /// When the first byte of the request being received arrived, for the log.
    private var firstByteAt: UInt64?

    init(services: OriginServices, info: ConnectionInfo) {
        self.services = services
        self.info = info
        let limit = services.configuration.requestTimeout.nanoseconds
        self.deadline = RequestDeadline(limitNanoseconds: UInt64(clamping: max(1, limit)))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = services.clock.nowNanoseconds
        let action = deadline.bytesReceived(atNanoseconds: now)
        if case .arm = action { firstByteAt = now }
        perform(action)
        context.fireChannelRead(data)
    }

    /// `OriginHTTPHandler` received a request head.
    func requestHeadReceived() {
        let now = services.clock.nowNanoseconds
        let action = deadline.requestHeadReceived(atNanoseconds: now)
        if case .arm = action { firstByteAt = now }
        perform(action)
    }

    /// `OriginHTTPHandler` received the end of a request.
    func requestEnded() {
        firstByteAt = nil
        perform(deadline.requestEnded())
    }

    /// `OriginHTTPHandler` finished sending a response.
    func responseEnded() {
        perform(deadline.responseEnded(atNanoseconds: services.clock.nowNanoseconds))
    }

    private func perform(_ action: RequestDeadline.Action) {
        guard let context else { return }
        switch action {
        case .none:
            break
        case .disarm:
            cancelTimer()
        case .arm(let at):
            cancelTimer()
            let now = services.clock.nowNanoseconds
            let wait = at > now ? at - now : 0
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(clamping: wait))) {
                self.timer = nil
                self.perform(self.deadline.timerFired(atNanoseconds: self.services.clock.nowNanoseconds))
            }
        case .timeOut(let headReceived):
            cancelTimer()
            if headReceived {
                context.fireUserInboundEventTriggered(RequestDeadlineExpired())
            } else {
                answerBare(context: context)
            }
        }
    }

    /// Only part of a request head arrived: the decoder holds it, so no HTTP handler can
    /// answer; the 408 goes out as raw bytes from here, then the connection closes.
    private func answerBare(context: ChannelHandlerContext) {
        let body = "Request Timeout: the request did not arrive in full in time\n"
        let text = "HTTP/1.1 408 Request Timeout\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body
        info.closing = true
        let started = firstByteAt ?? services.clock.nowNanoseconds
        let buffer = context.channel.allocator.buffer(string: text)
        context.writeAndFlush(NIOAny(buffer)).assumeIsolated().whenComplete { result in
            let now = self.services.clock.nowNanoseconds
            let sent: Bool
            if case .success = result { sent = true } else { sent = false }
            self.services.record(
                OriginRequestRecord(
                    connectionID: self.info.id, interface: self.info.interface,
                    proxySource: self.info.proxy?.source?.description, method: "-", path: "-", range: nil, status: 408,
                    bytesSent: sent ? body.utf8.count : 0, startedAtNanoseconds: started,
                    timeToFirstByteNanoseconds: sent ? now &- started : nil, durationNanoseconds: now &- started,
                    faultRuleID: nil, completed: sent))
            context.close(promise: nil)
        }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }
}
