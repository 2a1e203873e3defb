import NIOCore
import NIOPosix

/// An upstream for the proxies under test: a real HTTP/1.1 server on loopback that answers
/// any request with `size` bytes (a repeating pattern) and closes the connection.
final class BlobServer: Sendable {
    let port: Int
    let size: Int
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel

    static func start(size: Int) async throws -> BlobServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Answer(size: size)) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return BlobServer(group: group, channel: channel, size: size)
    }

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel, size: Int) {
        self.group = group
        self.channel = channel
        self.size = size
        port = channel.localAddress!.port!
    }

    var address: String { "127.0.0.1:\(port)" }

    /// The bytes it sends as a body.
    static func body(_ size: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: $0 % 251) } }

    func stop() async {
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    private final class Answer: ChannelInboundHandler, @unchecked Sendable {
        // @unchecked: one per channel, its state touched on that channel's event loop only.
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let size: Int
        var seen: [UInt8] = []
        var answered = false

        init(size: Int) { self.size = size }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            seen += buffer.readBytes(length: buffer.readableBytes) ?? []
            guard !answered, seen.count >= 4, String(decoding: seen, as: UTF8.self).contains("\r\n\r\n") else { return }
            answered = true
            var out = context.channel.allocator.buffer(capacity: size + 100)
            out.writeString("HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n")
            out.writeBytes(BlobServer.body(size))
            context.writeAndFlush(wrapOutboundOut(out)).whenComplete { _ in context.close(promise: nil) }
        }
    }
}
