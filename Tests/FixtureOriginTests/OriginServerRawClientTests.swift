import BenchCore
import FixtureOrigin
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `send(2)` without SIGPIPE, outside the class whose `send` methods would shadow it.
private func socketSend(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    send(fd, bytes, count, Int32(MSG_NOSIGNAL))
    #else
    send(fd, bytes, count, 0)
    #endif
}

/// A tiny HTTP/1.1 client over one blocking POSIX socket, for live-socket tests: it
/// sends exactly the bytes a test writes and reads responses by `Content-Length`, so
/// tests can see short bodies, EOFs and malformed exchanges a real client would hide.
/// Its reads wait on a thread of their own (`OffPool.run`): a test waiting seconds for a
/// timeout must not hold one of the few threads every other test's async work runs on.
// @unchecked: a test uses a connection from one task at a time, one call after another.
final class RawHTTPConnection: @unchecked Sendable {
    struct Response {
        var status: Int
        /// Lowercased names.
        var headers: [String: String]
        var body: [UInt8]
        /// The connection ended before `Content-Length` bytes arrived.
        var cutShort: Bool
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let fd: Int32
    private var pending: [UInt8] = []
    private(set) var sawEOF = false

    /// `timeoutSeconds` bounds each read: generous by default, as a loaded machine can
    /// be slow to answer; a test that expects silence sets its own.
    init(port: Int, timeoutSeconds: Int = 30) throws {
        #if canImport(Glibc)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw Failure(description: "connect() failed: \(errno)")
        }
    }

    deinit { close(fd) }

    /// Sets how long a read waits before it throws "read timed out".
    func setReadTimeout(seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { socketSend(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw Failure(description: "send() failed: \(errno)") }
            offset += n
        }
    }

    /// Sends a request with the usual headers plus `headers`.
    func request(_ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = []) throws {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: origin.test\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        if !body.isEmpty { text += "Content-Length: \(body.count)\r\n" }
        try send(Array((text + "\r\n").utf8) + body)
    }

    /// Reads one response; nil when the connection ended before any byte of it.
    func readResponse(head: Bool = false) async throws -> Response? {
        try await OffPool.run { try self.readResponseNow(head: head) }
    }

    private func readResponseNow(head: Bool) throws -> Response? {
        let separator: [UInt8] = [13, 10, 13, 10]
        var end: Int?
        while true {
            end = pending.firstRange(of: separator)?.lowerBound
            if end != nil { break }
            if try !fill() { break }
        }
        guard let end else {
            if pending.isEmpty { return nil }
            throw Failure(description: "connection ended inside a response head")
        }
        let headText = String(decoding: pending[..<end], as: UTF8.self)
        pending.removeFirst(end + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure(description: "bad status line in \(headText)")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = head || status == 204 || status == 304 ? 0 : Int(headers["content-length"] ?? "0") ?? 0
        while pending.count < length, try fill() {}
        let body = Array(pending.prefix(length))
        pending.removeFirst(body.count)
        return Response(status: status, headers: headers, body: body, cutShort: body.count < length)
    }

    /// Waits up to `milliseconds` for the server to send something or close the
    /// connection; true if it did (a read would not block).
    func waitForReadable(milliseconds: Int32) async -> Bool {
        if !pending.isEmpty || sawEOF { return true }
        let fd = fd
        return await OffPool.run {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&descriptor, 1, milliseconds) > 0
        }
    }

    /// Reads until `count` bytes have come (after any response already read), waiting
    /// at most the read timeout for each piece; returns them, fewer if the server closed.
    func read(count: Int) async throws -> [UInt8] {
        try await OffPool.run {
            while self.pending.count < count, try self.fill() {}
            let bytes = Array(self.pending.prefix(count))
            self.pending.removeFirst(bytes.count)
            return bytes
        }
    }

    /// Reads until the server closes; returns what came.
    func readToEOF() async throws -> [UInt8] {
        try await OffPool.run {
            while try self.fill() {}
            defer { self.pending = [] }
            return self.pending
        }
    }

    /// Reads once more; false at EOF (or a reset). Throws on timeout.
    private func fill() throws -> Bool {
        if sawEOF { return false }
        var chunk = [UInt8](repeating: 0, count: 65536)
        var n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        while n < 0, errno == EINTR { n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) } }
        if n > 0 {
            pending += chunk[..<n]
            return true
        }
        if n < 0, errno == EAGAIN || errno == EWOULDBLOCK { throw Failure(description: "read timed out") }
        sawEOF = true
        return false
    }
}

/// Starts an origin over a small catalog for one test and stops it afterwards.
func withOrigin<T>(
    _ configure: (inout OriginConfiguration) -> Void = { _ in },
    sink: (@Sendable (OriginRequestRecord) -> Void)? = nil,
    _ body: (OriginServer) async throws -> T
) async throws -> T {
    var configuration = OriginConfiguration(catalog: CatalogConfiguration(sizeScale: 0.01, largeVideoDuration: 60), threads: 1)
    // Long enough that a loaded test machine never closes a connection between a test's
    // requests; the tests of the idle timeout set their own.
    configuration.idleTimeout = .seconds(300)
    configure(&configuration)
    let server = try await OriginServer.start(configuration: configuration, requestSink: sink)
    do {
        let result = try await body(server)
        try await server.stop()
        return result
    } catch {
        try? await server.stop()
        throw error
    }
}

/// The log once it holds `count` records (they are written just after the response
/// leaves, so a test may read a response before its record exists); the log as it is,
/// with an issue recorded, if they do not all come within a minute.
func waitForLog(
    _ server: OriginServer, count: Int, sourceLocation: SourceLocation = #_sourceLocation
) async throws -> [OriginRequestRecord] {
    await eventually("the origin logging \(count) requests (it logged \(server.requestLog.count))", sourceLocation: sourceLocation) {
        server.requestLog.count >= count
    }
    return server.requestLog
}
