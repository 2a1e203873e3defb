import NIOCore
import NIOSSL

/// The handler after the PROXY header of an origin that serves HTTPS too: a connection
/// whose first byte is a TLS handshake record (0x16) gets the origin's TLS server handler
/// behind this one; any other is plain HTTP. Either way the bytes pass on and this
/// handler leaves the pipeline. So one port serves both, and a tunnel through the
/// conditioner reaches TLS after the PROXY line that attributes it to its interface.
/// Runs on the channel's event loop, inside a `ByteToMessageHandler`.
struct TLSSniffer: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// The first byte of a TLS handshake record.
    static let handshake: UInt8 = 0x16

    private let tls: NIOSSLContext
    private var decided = false

    init(tls: NIOSSLContext) {
        self.tls = tls
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if !decided {
            guard let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else { return .needMoreData }
            decided = true
            if first == Self.handshake {
                try context.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls), position: .after(context.handler))
            }
            forward(context: context, buffer: &buffer)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return .needMoreData
        }
        forward(context: context, buffer: &buffer)
        return .needMoreData
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        if decided { forward(context: context, buffer: &buffer) } else { buffer.moveReaderIndex(to: buffer.writerIndex) }
        return .needMoreData
    }

    private func forward(context: ChannelHandlerContext, buffer: inout ByteBuffer) {
        if buffer.readableBytes > 0, let rest = buffer.readSlice(length: buffer.readableBytes) {
            context.fireChannelRead(NIOAny(rest))
        }
    }
}
