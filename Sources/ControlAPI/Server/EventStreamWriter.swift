import Foundation
import LinkConditioner
import NIOCore
import NIOHTTP1

/// Writes one `GET /deadzone/events` answer: the head, then each batch of the feed as
/// JSON lines (`{"seq": N, "t": ns, "event": {…}}`, as `--events` writes them plus the
/// number) or as server-sent events (`id: N`, `event: TYPE`, `data: {…}`). It ends after
/// the conditioner's `stopped` event, or when the client reads so slowly that 16 MiB wait
/// unsent (a last line says from where to ask again). Event-loop confined.
final class EventStreamWriter: @unchecked Sendable {
    // @unchecked: created, fed and finished on the channel's event loop only.
    static let unsentLimit = 16 << 20

    private let serverSent: Bool
    private let context: ChannelHandlerContext
    var feed: EventFeed?
    var subscription: Int?
    private var unsent = 0
    private var ended = false
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    init(serverSent: Bool, context: ChannelHandlerContext) {
        self.serverSent = serverSent
        self.context = context
    }

    /// Writes the head: 200, chunked, no caching.
    func start() {
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: serverSent ? "text/event-stream" : "application/x-ndjson")
        headers.add(name: "Cache-Control", value: "no-cache")
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))),
                              promise: nil)
    }

    func send(_ batch: EventFeed.Batch) {
        guard !ended else { return }
        var text = ""
        var stopped = false
        for (seq, event) in batch {
            text += entry(seq, event)
            if case .stopped = event.kind { stopped = true }
        }
        if unsent + text.utf8.count > Self.unsentLimit, let first = batch.first {
            let line = serverSent ? "event: error\ndata: " : ""
            write(line + "{\"error\":\"the client read too slowly: \(Self.unsentLimit >> 20) MiB of events waited unsent; "
                + "ask again with from=\(first.seq)\"}\n" + (serverSent ? "\n" : ""))
            return end()
        }
        write(text)
        if stopped { end() }
    }

    /// Stops taking events (the client went, or the stream ended).
    func finish() {
        if let subscription { feed?.unsubscribe(subscription) }
        subscription = nil
        ended = true
    }

    private func entry(_ seq: Int, _ event: ConditionerEvent) -> String {
        guard let data = try? encoder.encode(event) else { return "" }
        let json = String(decoding: data, as: UTF8.self)
        guard serverSent else { return "{\"seq\":\(seq)," + json.dropFirst() + "\n" }
        return "id: \(seq)\nevent: \(event.kind.name.rawValue)\ndata: \(json)\n\n"
    }

    private func write(_ text: String) {
        let bytes = text.utf8.count
        guard bytes > 0 else { return }
        var buffer = context.channel.allocator.buffer(capacity: bytes)
        buffer.writeString(text)
        unsent += bytes
        let done = context.eventLoop.makePromise(of: Void.self)
        done.futureResult.whenComplete { [self] _ in unsent -= bytes }
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.body(.byteBuffer(buffer))), promise: done)
    }

    private func end() {
        finish()
        let context = context
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }
}
