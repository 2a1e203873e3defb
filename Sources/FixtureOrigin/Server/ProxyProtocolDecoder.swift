import NIOCore

/// What one connection knows about itself, shared by its handlers on its event loop:
/// its number and what its PROXY header said. Not `Sendable`: made in the child
/// channel initializer and touched only on that channel's event loop.
final class ConnectionInfo {
    /// Accept-order number, from 1.
    let id: UInt64
    /// The PROXY header, once parsed; nil for a direct connection.
    var proxy: ProxyHeader?
    /// The interface name the header resolved to.
    var interface: String?
    /// The origin has begun an answer that ends the connection (408, 413, a fault, no
    /// keep-alive): what the HTTP decoder makes of leftover bytes at the close is not a
    /// request, and is not logged as one.
    var closing = false

    init(id: UInt64) {
        self.id = id
    }
}

/// The first handler of an origin connection: if the connection starts with `PROXY `,
/// reads the v1 header, stores it (and the interface it names) in the connection's
/// `ConnectionInfo`, then passes every later byte on untouched and removes itself.
/// A connection that does not start with the signature is passed on as it is; a
/// malformed or over-long header closes the connection.
///
/// Runs on the channel's event loop, inside a `ByteToMessageHandler`.
struct ProxyProtocolDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    private let info: ConnectionInfo
    private let interfaces: [String: String]
    private var passThrough = false

    init(info: ConnectionInfo, interfaces: [String: String]) {
        self.info = info
        self.interfaces = interfaces
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if passThrough { return forward(context: context, buffer: &buffer) }
        let signature = ProxyHeader.signature
        let head = buffer.readableBytesView.prefix(signature.count)
        guard head.elementsEqual(signature.prefix(head.count)) else { return finish(context: context, buffer: &buffer) }
        guard head.count == signature.count else { return .needMoreData }

        let window = buffer.readableBytesView.prefix(ProxyHeader.maximumLength)
        guard let cr = window.firstIndex(of: UInt8(ascii: "\r")) else {
            if window.count >= ProxyHeader.maximumLength { return refuse(context: context, buffer: &buffer) }
            return .needMoreData
        }
        let lineLength = cr - window.startIndex
        guard lineLength + 2 <= ProxyHeader.maximumLength else { return refuse(context: context, buffer: &buffer) }
        guard lineLength + 1 < window.count else { return .needMoreData }  // wait for the LF
        guard window[cr + 1] == UInt8(ascii: "\n"),
            let header = try? ProxyHeader.parse(line: window[window.startIndex..<cr])
        else { return refuse(context: context, buffer: &buffer) }
        buffer.moveReaderIndex(forwardBy: lineLength + 2)
        info.proxy = header
        if let destination = header.destination {
            info.interface = interfaces[destination.description] ?? destination.description
        }
        return finish(context: context, buffer: &buffer)
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws
        -> DecodingState
    {
        if passThrough { return forward(context: context, buffer: &buffer) }
        buffer.moveReaderIndex(to: buffer.writerIndex)  // an unfinished header is dropped
        return .needMoreData
    }

    /// Header done (or absent): pass the rest on and leave the pipeline.
    private mutating func finish(context: ChannelHandlerContext, buffer: inout ByteBuffer) -> DecodingState {
        passThrough = true
        _ = forward(context: context, buffer: &buffer)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        return .needMoreData
    }

    private func forward(context: ChannelHandlerContext, buffer: inout ByteBuffer) -> DecodingState {
        if buffer.readableBytes > 0, let rest = buffer.readSlice(length: buffer.readableBytes) {
            context.fireChannelRead(NIOAny(rest))
        }
        return .needMoreData
    }

    private func refuse(context: ChannelHandlerContext, buffer: inout ByteBuffer) -> DecodingState {
        buffer.moveReaderIndex(to: buffer.writerIndex)
        context.close(promise: nil)
        return .needMoreData
    }
}
