import AsyncHTTPClient
import BenchCore
import Foundation
import HLSPlaylist
import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// What a download into a file ended with.
public struct FileTransferResult: Sendable, Hashable {
    /// Bytes in the file now (resumed bytes included).
    public var length: Int64
    /// The resource's `ETag`, when the server sent one.
    public var etag: String?
    /// The server did not honour the resume (If-Range mismatch, no range support), so the
    /// file was rewritten from its first byte.
    public var restarted: Bool
    /// Bytes this transfer received (what crossed the network for the body).
    public var received: Int64
}

extension HTTPTransport {
    /// Downloads `url` over `interface` into the file at `path`, resuming after its first
    /// `resumeAt` bytes with `Range` (and `If-Range: etag` when known). With `byteRange`
    /// (EXT-X-BYTERANGE) only that part of the resource is fetched, and the file holds
    /// just those bytes. Calls `responded` with the answer's ETag and the file's full
    /// length (when Content-Length tells it) once the answer is accepted, so a caller can
    /// keep them for If-Range and for checking the file even if the body breaks off; and
    /// `progress` with each chunk's size as it is written. Does not sync: the caller commits.
    ///
    /// - Throws: `TransportError`: `.captivePortal` for a captive portal's answer
    ///   (`CaptivePortal.check`: 511, or a web page), before anything is written;
    ///   `.status` for any other answer but 200/206 (a 416 for a resume of a file that
    ///   is already whole counts as success), `.stalled` when no bytes come for
    ///   `stallTimeout`, `.storage` when the file cannot be written.
    public func download(
        _ url: URL, via interface: PathInterface?, to path: String, resumeAt: Int64, etag: String?,
        byteRange: ByteRange? = nil, responded: @Sendable (_ etag: String?, _ length: Int64?) -> Void = { _, _ in },
        progress: @Sendable (Int) -> Void
    ) async throws(TransportError) -> FileTransferResult {
        var request = Self.request(url, via: interface)
        let first = Int64(byteRange?.offset ?? 0) + resumeAt
        if let byteRange {
            let last = Int64(byteRange.offset + byteRange.length) - 1
            guard first <= last else { return FileTransferResult(length: resumeAt, etag: etag, restarted: false, received: 0) }
            request.headers.replaceOrAdd(name: "Range", value: "bytes=\(first)-\(last)")
        } else if resumeAt > 0 {
            request.headers.replaceOrAdd(name: "Range", value: "bytes=\(resumeAt)-")
        }
        if resumeAt > 0, let etag { request.headers.replaceOrAdd(name: "If-Range", value: etag) }
        let file = try SegmentFile(path: path)
        defer { file.close() }
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(Int64(clamping: configuration.headTimeout.nanoseconds)))
            // A captive portal's page is never written, not even over a `.part` being
            // resumed: the bytes already there stay for the next run.
            let status = Int(response.status.code)
            if let portal = CaptivePortal.check(status: status, headers: response.headers, for: "GET \(url.path)") { throw portal }
            let newTag = response.headers.first(name: "ETag")
            var offset: Int64
            var restarted = false
            switch response.status.code {
            case 206:
                guard let range = ContentRange(response.headers.first(name: "Content-Range")), range.start == first else {
                    throw TransportError.invalidResponse(
                        "asked for bytes \(first)- of \(url.path), got Content-Range \(response.headers.first(name: "Content-Range") ?? "none")")
                }
                offset = resumeAt
            case 200 where byteRange != nil:
                throw TransportError.invalidResponse("\(url.path) answered the whole resource to a byte-range request")
            case 200:
                offset = 0
                restarted = resumeAt > 0
            case 416 where resumeAt > 0 && byteRange == nil:
                // Already whole if the server's length is what we hold.
                if ContentRange(response.headers.first(name: "Content-Range"))?.total == resumeAt {
                    return FileTransferResult(length: resumeAt, etag: etag, restarted: false, received: 0)
                }
                throw TransportError.status(416, retryAfter: nil)
            default:
                throw TransportError.status(
                    Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After").flatMap { Int($0) })
            }
            try file.truncate(to: offset)
            responded(newTag ?? etag, response.headers.first(name: "Content-Length").flatMap { Int64($0) }.map { offset + $0 })
            var received: Int64 = 0
            for try await chunk in response.body {
                try file.write(chunk, at: offset)
                offset += Int64(chunk.readableBytes)
                received += Int64(chunk.readableBytes)
                progress(chunk.readableBytes)
            }
            return FileTransferResult(length: offset, etag: newTag ?? etag, restarted: restarted, received: received)
        } catch {
            throw Self.classify(error)
        }
    }
}

/// `Content-Range: bytes a-b/total` (or `bytes */total`).
struct ContentRange: Hashable {
    var start: Int64?
    var total: Int64?

    init?(_ header: String?) {
        guard let header, header.hasPrefix("bytes ") else { return nil }
        let parts = header.dropFirst(6).split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        total = Int64(parts[1])
        start = parts[0] == "*" ? nil : parts[0].split(separator: "-").first.flatMap { Int64($0) }
    }
}

/// A segment's `.part` file, written at explicit offsets with POSIX calls so that a full
/// disk is told apart from any other failure.
final class SegmentFile {
    private let fd: Int32
    private let path: String

    init(path: String) throws(TransportError) {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Self.failure("open \(path)") }
    }

    func truncate(to length: Int64) throws(TransportError) {
        guard ftruncate(fd, off_t(length)) == 0 else { throw Self.failure("truncate \(path)") }
    }

    func write(_ buffer: ByteBuffer, at offset: Int64) throws(TransportError) {
        var written = 0
        let total = buffer.readableBytes
        while written < total {
            let n = buffer.withUnsafeReadableBytes { bytes in
                pwrite(fd, bytes.baseAddress! + written, total - written, off_t(offset) + off_t(written))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw Self.failure("write \(path)")
            }
            written += n
        }
    }

    func close() {
        _ = Glibc.close(fd)
    }

    private static func failure(_ what: String) -> TransportError {
        let code = errno
        return .storage("\(what): \(String(cString: strerror(code)))", noSpace: code == ENOSPC || code == EDQUOT)
    }
}
