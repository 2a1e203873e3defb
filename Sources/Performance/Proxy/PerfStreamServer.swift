import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A local origin that accepts up to `connections` connections on 127.0.0.1 and writes to each,
/// as fast as it will go, from its own thread until `stop()`. For a handful of connections.
final class PerfStreamServer: Sendable {
    static let chunkSize = 64 * 1024

    let port: UInt16
    private let listener: Int32
    private let stopping = PerfFlag()
    private let acceptor = Mutex<PerfThread<Void>?>(nil)
    private let writers = Mutex<[PerfThread<Void>]>([])
    let accepted = PerfCounter()

    init(connections: Int) throws {
        (listener, port) = try PerfSocket.listen()
        let thread = try PerfThread<Void>.start(name: "perf-accept") { [self] in acceptLoop(connections) }
        acceptor.withLock { $0 = thread }
    }

    /// Stops every writer, joins every thread and closes every socket. Idempotent.
    func stop() {
        stopping.set()
        if let thread = acceptor.withLock({ value -> PerfThread<Void>? in defer { value = nil }; return value }) {
            thread.join()
            close(listener)
        }
        for thread in writers.withLock({ value in defer { value = [] }; return value }) { thread.join() }
    }

    private func acceptLoop(_ connections: Int) {
        var count = 0
        let deadline = PerfClock.now() + 60_000_000_000
        while count < connections, !stopping.isSet, PerfClock.now() < deadline {
            guard PerfSocket.waitReadable(listener, timeout: 0.05) else { continue }
            let fd = accept(listener, nil, nil)
            if fd < 0 { continue }
            PerfSocket.setNoDelay(fd)
            count += 1
            accepted.add(1)
            if let writer = try? PerfThread<Void>.start(name: "perf-origin", { [self] in writeLoop(fd) }) {
                writers.withLock { $0.append(writer) }
            } else {
                close(fd)
            }
        }
    }

    private func writeLoop(_ fd: Int32) {
        defer { close(fd) }
        PerfSocket.setTimeouts(fd, seconds: 0.1)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.chunkSize, alignment: 4096)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0x33, count: Self.chunkSize)
        let deadline = PerfClock.now() + 600_000_000_000
        while !stopping.isSet, PerfClock.now() < deadline {
            let n = send(fd, buffer, Self.chunkSize, Int32(MSG_NOSIGNAL))
            if n >= 0 { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
            return
        }
    }
}
