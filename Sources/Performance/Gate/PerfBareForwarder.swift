import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A minimal byte-copying TCP relay: the floor any userspace proxy pays on loopback, against
/// which `bench perf gate` measures the link conditioner.
///
/// It listens where the conditioner's wifi listener does (127.0.0.2, an ephemeral port) and
/// relays each accepted connection to 127.0.0.1:`upstreamPort` over the same kind of sockets
/// (TCP_NODELAY both sides, 64 KiB reads like the conditioner's buffers): one thread per
/// direction, blocking `recv` then `send` of what it read, and nothing else — no shaping, no
/// events, no PROXY header. End of stream is passed on as a half-close. Made by the gate's
/// throughput measurement; `stop()` joins every thread it started.
final class PerfBareForwarder: Sendable {
    /// Bytes read at a time, as the conditioner's read buffers (`BufferPool.bufferSize`).
    static let bufferSize = 64 * 1024
    static let host = "127.0.0.2"

    let port: UInt16
    private let listener: Int32
    private let upstreamPort: UInt16
    private let stopping = PerfFlag()
    private let acceptor = Mutex<PerfThread<Void>?>(nil)
    private let relays = Mutex<[PerfThread<Void>]>([])

    /// Starts listening on 127.0.0.2 and accepting, on a thread of its own.
    init(upstreamPort: UInt16) throws {
        (listener, port) = try PerfSocket.listen(host: Self.host)
        self.upstreamPort = upstreamPort
        let thread = try PerfThread<Void>.start(name: "perf-fwd-accept") { [self] in acceptLoop() }
        acceptor.withLock { $0 = thread }
    }

    /// Stops accepting and relaying, joins every thread and closes every socket. Idempotent.
    func stop() {
        stopping.set()
        if let thread = acceptor.withLock({ value -> PerfThread<Void>? in defer { value = nil }; return value }) {
            thread.join()
            close(listener)
        }
        for thread in relays.withLock({ value in defer { value = [] }; return value }) { thread.join() }
    }

    private func acceptLoop() {
        while !stopping.isSet {
            guard PerfSocket.waitReadable(listener, timeout: 0.05) else { continue }
            let client = accept(listener, nil, nil)
            if client < 0 { continue }
            guard let upstream = try? PerfSocket.connect(host: "127.0.0.1", port: upstreamPort) else {
                close(client)
                continue
            }
            PerfSocket.setNoDelay(client)
            if let relay = try? PerfThread<Void>.start(name: "perf-fwd", { [self] in relay(client, upstream) }) {
                relays.withLock { $0.append(relay) }
            } else {
                close(client)
                close(upstream)
            }
        }
    }

    /// Copies client → upstream on this thread and upstream → client on a second one; closes
    /// both sockets when both directions have ended.
    private func relay(_ client: Int32, _ upstream: Int32) {
        defer { close(client); close(upstream) }
        // A receive timeout only so that a stopped forwarder's threads notice; data never waits on it.
        for fd in [client, upstream] { PerfSocket.setTimeouts(fd, seconds: 0.1) }
        let back = try? PerfThread<Void>.start(name: "perf-fwd") { [self] in copy(from: upstream, to: client) }
        copy(from: client, to: upstream)
        if let back { back.join() } else { copy(from: upstream, to: client) }
    }

    /// Reads from `source` and writes everything read to `destination` until the source
    /// ends (then half-closes the destination), either side fails, or the forwarder stops.
    private func copy(from source: Int32, to destination: Int32) {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.bufferSize, alignment: 4096)
        defer { buffer.deallocate() }
        while !stopping.isSet {
            let n = recv(source, buffer, Self.bufferSize, 0)
            if n == 0 { shutdown(destination, Int32(SHUT_WR)); return }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                shutdown(destination, Int32(SHUT_RDWR))
                return
            }
            guard write(buffer, count: n, to: destination) else { shutdown(source, Int32(SHUT_RDWR)); return }
        }
    }

    /// Writes `count` bytes, waiting out send timeouts unless the forwarder stops.
    private func write(_ buffer: UnsafeMutableRawPointer, count: Int, to fd: Int32) -> Bool {
        var done = 0
        while done < count {
            let n = send(fd, buffer + done, count - done, Int32(MSG_NOSIGNAL))
            if n > 0 { done += n; continue }
            if n < 0, errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK, !stopping.isSet { continue }
            return false
        }
        return true
    }
}
