import BenchCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One streamed HTTP answer read over a raw socket: the request is written, then what
/// comes is kept and read on until it satisfies a test or a deadline passes. Every
/// blocking call runs on a thread off the pool. Used by one test at a time.
final class StreamReader: @unchecked Sendable {
    // @unchecked: `received` is touched by one awaiting test at a time, each read awaited.
    private let fd: Int32
    private var received: [UInt8] = []

    private init(fd: Int32) { self.fd = fd }

    /// Connects to `127.0.0.1:port` and sends `GET target` with `headers` (`Name: value`).
    static func open(port: Int, target: String, headers: [String] = []) async throws -> StreamReader {
        let fd: Int32 = await OffPool.run {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let rc = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if rc != 0 { Glibc.close(fd); return -1 }
            let request = (["GET \(target) HTTP/1.1", "Host: 127.0.0.1:\(port)"] + headers).joined(separator: "\r\n") + "\r\n\r\n"
            let bytes = Array(request.utf8)
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            return fd
        }
        guard fd >= 0 else { throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot connect to port \(port)"]) }
        return StreamReader(fd: fd)
    }

    /// Everything read so far, as text.
    var text: String { String(decoding: received, as: UTF8.self) }

    /// Whether the peer ended the stream (read returned 0) during the last read.
    private(set) var ended = false

    /// Reads until `done(text)` holds, the peer closes, or `within` passes; whether `done` held.
    func read(within: Duration = .seconds(60), until done: @escaping @Sendable (String) -> Bool) async -> Bool {
        let fd = fd
        let start = received
        let (bytes, closed) = await OffPool.run { () -> ([UInt8], Bool) in
            var all = start
            let deadline = MonotonicClock().nowNanoseconds + within.nanoseconds
            var buffer = [UInt8](repeating: 0, count: 65536)
            while !done(String(decoding: all, as: UTF8.self)) {
                let now = MonotonicClock().nowNanoseconds
                guard now < deadline else { return (all, false) }
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&pfd, 1, Int32(min(1000, (deadline - now) / 1_000_000 + 1)))
                guard ready > 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return (all, true) }
                all += buffer[..<count]
            }
            return (all, false)
        }
        received = bytes
        ended = closed
        return done(text)
    }

    private var isClosed = false

    /// Closes the connection (once; the deinit closes it otherwise).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }

    deinit { close() }
}
