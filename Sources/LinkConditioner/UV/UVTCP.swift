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

    /// Ends a listening socket's listening for every process that holds it, then closes it.
    /// A child spawned at this moment holds a copy of the descriptor until it execs (close-on-exec
    /// acts only then): closing our copy alone leaves the socket listening there, so connections
    /// succeed and a rebind of the port fails. `shutdown(SHUT_RD)` acts on the socket itself, and
    /// on Linux it takes a listening socket out of the listening state in every holder.
    func closeListener() {
        var fd: uv_os_fd_t = -1
        if !isClosing, uv_fileno(handle, &fd) == 0 { _ = Glibc.shutdown(fd, Int32(SHUT_RD)) }
        close()
    }

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
        var storage = address.sockaddr
        issue(uv_connect_t.self, completion: completion) { request in
            withUnsafePointer(to: &storage) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { addr in
                    uv_tcp_connect(request, tcp, addr) { requestFinished($0, $1) }
                }
            }
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
        var bufs = slices.map { uv_buf_init($0.start.assumingMemoryBound(to: CChar.self), UInt32($0.count)) }
        issue(uv_write_t.self, keeping: slices, completion: completion) { request in
            uv_write(request, stream, &bufs, UInt32(bufs.count)) { requestFinished($0, $1) }
        }
    }

    /// Graceful half-close of our sending side once queued writes are done (FIN).
    func shutdown(completion: @escaping (Int32) -> Void) {
        guard !isClosing else { completion(Int32(UV_ECANCELED.rawValue)); return }
        issue(uv_shutdown_t.self, completion: completion) { request in
            uv_shutdown(request, stream) { requestFinished($0, $1) }
        }
    }

    /// Runs one libuv request. Its context (the completion, and the chunks a write
    /// must keep alive) is retained until libuv calls back, or released at once when
    /// `start` fails.
    private func issue<Request: UVRequest>(
        _: Request.Type, keeping slices: [ChunkSlice] = [], completion: @escaping (Int32) -> Void,
        start: (UnsafeMutablePointer<Request>) -> Int32
    ) {
        let request = UnsafeMutablePointer<Request>.allocate(capacity: 1)
        request.initialize(to: Request())
        request.pointee.data = Unmanaged.passRetained(RequestContext(slices, completion)).toOpaque()
        let rc = start(request)
        if rc != 0 { requestFinished(request, rc) }
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

/// libuv request types issued here; each begins with UV_REQ_FIELDS, whose `data` carries the context.
protocol UVRequest {
    init()
    var data: UnsafeMutableRawPointer! { get set }
}

extension uv_connect_t: UVRequest {}
extension uv_shutdown_t: UVRequest {}
extension uv_write_t: UVRequest {}

/// Ends a request: balances the context's retain, frees the request, then completes.
/// Called from libuv's callbacks, and by `issue` when a request could not start.
private func requestFinished<Request: UVRequest>(_ request: UnsafeMutablePointer<Request>?, _ status: Int32) {
    guard let request else { return }
    let context = Unmanaged<RequestContext>.fromOpaque(request.pointee.data).takeRetainedValue()
    request.deinitialize(count: 1)
    request.deallocate()
    context.completion(status)
}

private final class RequestContext {
    /// Kept alive until libuv is done with the bytes.
    let slices: [ChunkSlice]
    let completion: (Int32) -> Void

    init(_ slices: [ChunkSlice], _ completion: @escaping (Int32) -> Void) {
        self.slices = slices
        self.completion = completion
    }
}
