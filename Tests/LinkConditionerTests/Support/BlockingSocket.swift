import BenchCore
import Foundation
import LinkConditioner
#if canImport(Glibc)
import Glibc
#endif

/// A plain blocking TCP socket for tests: what a client or server on the other
/// side of the conditioner sees, errno and all.
final class BlockingSocket: @unchecked Sendable {
    // @unchecked: each test uses a socket from one thread at a time; `fd` is immutable.
    let fd: Int32

    init(fd: Int32) { self.fd = fd }

    deinit { Glibc.close(fd) }

    enum ConnectResult {
        case connected(BlockingSocket)
        case failed(errno: Int32)
    }

    /// Connects (blocking); refused connections come back as `.failed(ECONNREFUSED)`.
    static func connect(to address: SocketAddress) -> ConnectResult {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = address.port.bigEndian
        inet_pton(AF_INET, address.host, &addr.sin_addr)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if rc != 0 {
            let error = errno
            Glibc.close(fd)
            return .failed(errno: error)
        }
        return .connected(BlockingSocket(fd: fd))
    }

    static func mustConnect(to address: SocketAddress) throws -> BlockingSocket {
        switch connect(to: address) {
        case .connected(let socket): return socket
        case .failed(let error): throw SocketTestError("connect to \(address) failed: errno \(error)")
        }
    }

    enum ReadOutcome: Equatable, Sendable {
        case data([UInt8])
        case eof
        case error(errno: Int32)
        case timedOut
    }

    /// One read, waiting at most `timeout`.
    func read(max: Int = 65536, timeout: Duration) -> ReadOutcome {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ms = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let ready = poll(&pfd, 1, ms)
        if ready == 0 { return .timedOut }
        var buffer = [UInt8](repeating: 0, count: max)
        let n = Glibc.read(fd, &buffer, max)
        if n > 0 { return .data(Array(buffer[0..<n])) }
        if n == 0 { return .eof }
        return .error(errno: errno)
    }

    /// Reads until EOF, error, `limit` bytes, or no data for `idle`.
    func readAll(limit: Int = .max, idle: Duration = .seconds(10)) -> (bytes: [UInt8], end: ReadOutcome) {
        var bytes: [UInt8] = []
        while bytes.count < limit {
            switch read(timeout: idle) {
            case .data(let chunk): bytes += chunk
            case let other: return (bytes, other)
            }
        }
        return (bytes, .data([]))
    }

    /// `read(max:timeout:)` from async code: the wait holds a thread outside Swift's
    /// cooperative pool (`OffPool`), never a pool thread.
    func read(max: Int = 65536, timeout: Duration) async -> ReadOutcome {
        await OffPool.run { self.read(max: max, timeout: timeout) }
    }

    /// `readAll(limit:idle:)` from async code, off the cooperative pool.
    func readAll(limit: Int = .max, idle: Duration = .seconds(10)) async -> (bytes: [UInt8], end: ReadOutcome) {
        await OffPool.run { self.readAll(limit: limit, idle: idle) }
    }

    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    func shutdownWrite() { Glibc.shutdown(fd, Int32(SHUT_WR)) }
}

struct SocketTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The deterministic byte pattern test servers send: byte i is `i % 251`.
func pattern(_ count: Int, from start: Int = 0) -> [UInt8] {
    (start..<start + count).map { UInt8($0 % 251) }
}
