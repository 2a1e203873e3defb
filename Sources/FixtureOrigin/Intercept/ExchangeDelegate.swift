import AsyncHTTPClient
import BenchVocabulary
import Crypto
import NIOCore
import NIOHTTP1

/// One intercepted exchange: sends the app's request to the real origin and streams its
/// answer to the app as it arrives, each body part written before the next is read (the
/// app's link, shaped by the conditioner, paces the real origin), hashing what it delivers.
/// At the end, one `OriginRequestRecord`: the fields the fixture origin's log has, plus the
/// real origin (`host`), the body's SHA-256 and, when the origin did not answer, why.
///
/// Confined to the app connection's event loop: AsyncHTTPClient calls it there
/// (`.delegateAndChannel(on:)`), and `done` is called there. Hence `@unchecked Sendable`.
final class ExchangeDelegate: HTTPClientResponseDelegate, @unchecked Sendable {
    typealias Response = Void

    private let request: InterceptExchangeHandler.Request
    private let origin: InterceptedOrigin
    private let path: String
    private let connection: (id: UInt64, interface: String?, source: String?)
    private let closeAfter: Bool
    private let channel: any Channel
    private let services: InterceptServices
    private let done: (_ keepOpen: Bool) -> Void
    private var status = 0
    private var headAt: UInt64?
    private var bytesSent = 0
    private var hash = SHA256()
    private var failure: String?
    private var finished = false

    /// Headers that concern one hop, not the exchange (RFC 9110 §7.6.1).
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "te", "trailer",
        "transfer-encoding", "upgrade",
    ]

    init(
        request: InterceptExchangeHandler.Request, origin: InterceptedOrigin, path: String,
        connection: (id: UInt64, interface: String?, source: String?), closeAfter: Bool, channel: any Channel,
        services: InterceptServices, done: @escaping (_ keepOpen: Bool) -> Void
    ) {
        self.request = request
        self.origin = origin
        self.path = path
        self.connection = connection
        self.closeAfter = closeAfter
        self.channel = channel
        self.services = services
        self.done = done
    }

    /// Sends the request to the real origin.
    func start() {
        var headers = HTTPHeaders()
        for (name, value) in request.head.headers where !Self.hopByHop.contains(name.lowercased()) {
            headers.add(name: name, value: value)
        }
        let upstream: HTTPClient.Request
        do {
            upstream = try HTTPClient.Request(
                url: origin.description + path, method: request.head.method, headers: headers,
                body: request.body.readableBytes > 0 ? .byteBuffer(request.body) : nil)
        } catch {
            answerFailure(status: .badRequest, "\(origin)\(path) is not a URL this proxy can request: \(error)")
            return
        }
        _ = services.client.execute(request: upstream, delegate: self, eventLoop: .delegateAndChannel(on: channel.eventLoop))
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        status = Int(head.status.code)
        var headers = HTTPHeaders()
        for (name, value) in head.headers where !Self.hopByHop.contains(name.lowercased()) {
            headers.add(name: name, value: value)
        }
        if closeAfter { headers.add(name: "Connection", value: "close") }
        headAt = services.configuration.clock.nowNanoseconds
        services.responseStarted(record(completed: false, countBody: false))
        return channel.writeAndFlush(HTTPServerResponsePart.head(
            HTTPResponseHead(version: .http1_1, status: head.status, headers: headers)))
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let written = channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer)))
        written.whenSuccess { [self] in
            bytesSent += buffer.readableBytes
            buffer.withUnsafeReadableBytes { hash.update(bufferPointer: $0) }
        }
        return written
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        guard !finished else { return }
        channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { [self] result in
            let delivered: Bool
            if case .success = result { delivered = true } else { delivered = false }
            end(completed: delivered, keepOpen: delivered && !closeAfter)
        }
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        guard !finished else { return }
        let why = Self.describe(error, of: origin)
        if headAt == nil, channel.isActive {
            answerFailure(status: .badGateway, why)
        } else {
            // The answer was under way: the app sees it cut short.
            failure = channel.isActive ? why : nil
            end(completed: false, keepOpen: false)
        }
    }

    /// Answers the app `status` with `why` as its body (and records why): the real origin
    /// gave nothing the app could be handed.
    private func answerFailure(status: HTTPResponseStatus, _ why: String) {
        self.status = Int(status.code)
        failure = why
        let body = ByteBuffer(string: "Deadzone's intercepting proxy: \(why)\n")
        let headers = HTTPHeaders([
            ("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", "\(body.readableBytes)"), ("Connection", "close"),
        ])
        headAt = services.configuration.clock.nowNanoseconds
        _ = channel.write(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers)))
        _ = channel.write(HTTPServerResponsePart.body(.byteBuffer(body)))
        channel.writeAndFlush(HTTPServerResponsePart.end(nil)).whenComplete { [self] _ in
            end(completed: false, keepOpen: false, countBody: false)
        }
    }

    /// Records the exchange once, and closes the app's connection unless it is kept open.
    private func end(completed: Bool, keepOpen: Bool, countBody: Bool = true) {
        guard !finished else { return }
        finished = true
        services.record(record(completed: completed, countBody: countBody))
        if !keepOpen { channel.close(promise: nil) }
        done(keepOpen)
    }

    /// The exchange as the log keeps it, now.
    private func record(completed: Bool, countBody: Bool) -> OriginRequestRecord {
        let now = services.configuration.clock.nowNanoseconds
        return OriginRequestRecord(
            connectionID: connection.id, interface: connection.interface, proxySource: connection.source,
            method: request.head.method.rawValue, path: path, range: request.head.headers.first(name: "range"),
            status: status, bytesSent: countBody ? bytesSent : 0, startedAtNanoseconds: request.startedAt,
            timeToFirstByteNanoseconds: headAt.map { $0 - min($0, request.startedAt) },
            durationNanoseconds: now - min(now, request.startedAt), faultRuleID: nil, completed: completed,
            host: origin.description, bodySHA256: countBody ? hash.finalize().map { String(format: "%02x", $0) }.joined() : nil,
            upstreamError: failure)
    }

    /// An upstream failure in words, saying what to do about a certificate not trusted.
    static func describe(_ error: any Error, of origin: InterceptedOrigin) -> String {
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed")
            || text.lowercased().contains("unable to get local issuer") {
            return "the certificate of \(origin) is not trusted (\(text)): pass --upstream-ca FILE with the CA that "
                + "signed it (the system's CAs are trusted; verification is never turned off)"
        }
        if let client = error as? HTTPClientError, client == .connectTimeout || client == .readTimeout {
            return "\(origin) did not answer in time (\(client))"
        }
        return "could not reach \(origin): \(text)"
    }
}
