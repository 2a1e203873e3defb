import CLibUV
#if canImport(Glibc)
import Glibc
#endif

/// A libuv TCP handle with closure-based callbacks. Loop thread only.
final class UVTCP: UVHandle {
    /// Called with bytes read; the chunk is owned by the receiver from then on.
    var onRead: ((Chunk) -> Void)?
    /// Called once when the peer ends its side (EOF) or the read fails (error code).
    var onReadEnd: ((Int32?) -> Void)?
    var onConnection: ((Int32) -> Void)?

    private(set) var isReading = false
    let pool: BufferPool

    init(loop: UnsafeMutablePointer<uv_loop_t>, pool: BufferPool) {
        self.pool = pool
        super.init(allocating: uv_tcp_t.self)
        uv_tcp_init(loop, tcp)
    }

    var tcp: UnsafeMutablePointer<uv_tcp_t> { raw.assumingMemoryBound(to: uv_tcp_t.self) }
    var stream: UnsafeMutablePointer<uv_stream_t> { raw.assumingMemoryBound(to: uv_stream_t.self) }

    /// Bytes queued in libuv waiting to be written to the socket.
    var writeQueueSize: Int { isClosing ? 0 : Int(uv_stream_get_write_queue_size(stream)) }

    func bind(_ address: SocketAddress) -> Int32 {
        var storage = address.sockaddr
        return withUnsafePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_bind(tcp, $0, 0) }
        }
    }

    func listen(backlog: Int32 = 511) -> Int32 {
        uv_listen(stream, backlog) { server, status in
            guard let data = server?.pointee.data else { return }
            Unmanaged<UVTCP>.fromOpaque(data).takeUnretainedValue().onConnection?(status)
        }
    }

    func accept(into client: UVTCP) -> Int32 { uv_accept(stream, client.stream) }

    func setNoDelay() { uv_tcp_nodelay(tcp, 1) }

    var localAddress: SocketAddress? {
        var storage = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_getsockname(tcp, $0, &length) }
        }
        return rc == 0 ? SocketAddress(storage: storage) : nil
    }

    var peerAddress: SocketAddress? {
        var storage = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { uv_tcp_getpeername(tcp, $0, &length) }
        }
        return rc == 0 ? SocketAddress(storage: storage) : nil
    }

    func connect(to address: SocketAddress, completion: @escaping (Int32) -> Void) {
        let request = UnsafeMutablePointer<uv_connect_t>.allocate(capacity: 1)
        request.initialize(to: uv_connect_t())
        request.pointee.data = Unmanaged.passRetained(ConnectContext(completion)).toOpaque()
        var storage = address.sockaddr
        let rc = withUnsafePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { addr in
                uv_tcp_connect(request, tcp, addr) { req, status in
                    guard let req else { return }
                    let context = Unmanaged<ConnectContext>.fromOpaque(req.pointee.data).takeRetainedValue()
                    req.deallocate()
                    context.completion(status)
                }
            }
        }
        if rc != 0 {
            Unmanaged<ConnectContext>.fromOpaque(request.pointee.data).release()
            request.deallocate()
            completion(rc)
        }
    }

    func startReading() {
        guard !isReading, !isClosing else { return }
        isReading = true
        uv_read_start(stream, { handle, _, buf in
            guard let handle, let buf, let data = handle.pointee.data else { return }
            let owner = Unmanaged<UVTCP>.fromOpaque(data).takeUnretainedValue()
            buf.pointee = uv_buf_init(owner.pool.take().assumingMemoryBound(to: CChar.self), UInt32(BufferPool.bufferSize))
        }, { stream, nread, buf in
            guard let stream, let data = stream.pointee.data else { return }
            let owner = Unmanaged<UVTCP>.fromOpaque(data).takeUnretainedValue()
            owner.didRead(nread, buf)
        })
    }

    func stopReading() {
        guard isReading, !isClosing else { return }
        isReading = false
        uv_read_stop(stream)
    }

    private func didRead(_ nread: Int, _ buf: UnsafePointer<uv_buf_t>?) {
        let base = buf?.pointee.base.map { UnsafeMutableRawPointer($0) }
        if nread > 0, let base {
            onRead?(Chunk(base: base, length: nread, pool: pool))
            return
        }
        if let base { pool.give(base) }
        if nread == 0 { return }  // EAGAIN: not EOF
        isReading = false
        uv_read_stop(stream)
        onReadEnd?(Int(Int32(truncatingIfNeeded: nread)) == Int(UV_EOF.rawValue) ? nil : Int32(truncatingIfNeeded: nread))
    }

    /// Writes the slices; `completion` gets the status once libuv is done with them.
    func write(_ slices: [ChunkSlice], completion: @escaping (Int32) -> Void) {
        guard !isClosing else { completion(Int32(UV_ECANCELED.rawValue)); return }
        let request = UnsafeMutablePointer<uv_write_t>.allocate(capacity: 1)
        request.initialize(to: uv_write_t())
        request.pointee.data = Unmanaged.passRetained(WriteContext(slices, completion)).toOpaque()
        var bufs = slices.map { uv_buf_init($0.start.assumingMemoryBound(to: CChar.self), UInt32($0.count)) }
        let rc = uv_write(request, stream, &bufs, UInt32(bufs.count)) { req, status in
            guard let req else { return }
            let context = Unmanaged<WriteContext>.fromOpaque(req.pointee.data).takeRetainedValue()
            req.deallocate()
            context.completion(status)
        }
        if rc != 0 {
            let context = Unmanaged<WriteContext>.fromOpaque(request.pointee.data).takeRetainedValue()
            request.deallocate()
            context.completion(rc)
        }
    }

    /// Graceful half-close of our sending side once queued writes are done (FIN).
    func shutdown(completion: @escaping (Int32) -> Void) {
        guard !isClosing else { completion(Int32(UV_ECANCELED.rawValue)); return }
        let request = UnsafeMutablePointer<uv_shutdown_t>.allocate(capacity: 1)
        request.initialize(to: uv_shutdown_t())
        request.pointee.data = Unmanaged.passRetained(ConnectContext(completion)).toOpaque()
        let rc = uv_shutdown(request, stream) { req, status in
            guard let req else { return }
            let context = Unmanaged<ConnectContext>.fromOpaque(req.pointee.data).takeRetainedValue()
            req.deallocate()
            context.completion(status)
        }
        if rc != 0 {
            Unmanaged<ConnectContext>.fromOpaque(request.pointee.data).release()
            request.deallocate()
            completion(rc)
        }
    }

    /// Closes with RST instead of FIN.
    func closeWithReset() {
        guard beginClose() else { return }
        clearCallbacks()
        if uv_tcp_close_reset(tcp, uvHandleClosed) != 0 {
            uv_close(handle, uvHandleClosed)
        }
    }

    override func close() {
        clearCallbacks()
        super.close()
    }

    private func clearCallbacks() {
        onRead = nil
        onReadEnd = nil
        onConnection = nil
    }
}

private final class ConnectContext {
    let completion: (Int32) -> Void
    init(_ completion: @escaping (Int32) -> Void) { self.completion = completion }
}

private final class WriteContext {
    let slices: [ChunkSlice]
    let completion: (Int32) -> Void
    init(_ slices: [ChunkSlice], _ completion: @escaping (Int32) -> Void) {
        self.slices = slices
        self.completion = completion
    }
}
