/// A resource the harness found partly on the app's disk at a kill, and the request that
/// resumed it (or fetched it again) after the relaunch. Shared by `crash-recovery` and its
/// tests.
///
/// The resource is a whole file (fixture segments, keys; a recorded stream's files) or a
/// byte range of one (EXT-X-BYTERANGE, an EXT-X-MAP's BYTERANGE: `path#bytes=a-b`, see
/// `MediaResourceKey`), of which the disk held a prefix. Resuming it means asking from the
/// first byte the disk did not hold: `Range: bytes=<bytesOnDisk>-` for a whole file,
/// `Range: bytes=<a + bytesOnDisk>-<b>` for a range (the rest of it, by position in the file).
public struct RangeResume: Sendable, Hashable {
    /// The resource, as the disk snapshot named it: an origin path, or `path#bytes=a-b`.
    public var path: String
    /// The bytes of it the disk held at the kill (from its first byte).
    public var bytesOnDisk: Int64
    /// The request for it after the kill (and before the next one) that the resume is
    /// judged by; nil when there was none (the download was not resumed in that window).
    public var request: TracedOriginRequest?

    /// The resource: its file's path and, for a byte range, that range.
    public var resource: MediaResourceKey { MediaResourceKey(path) }

    /// The first byte of the file the resume must ask for: the range's first plus what the
    /// disk held of it (what it held, for a whole file).
    public var expectedFirst: Int64 { resource.offset + bytesOnDisk }

    /// `bytes=<bytesOnDisk>-` for a whole file; `bytes=<a + bytesOnDisk>-<b>` for range a–b.
    public var expectedRange: String {
        resource.range.map { "bytes=\(expectedFirst)-\($0.upperBound)" } ?? "bytes=\(bytesOnDisk)-"
    }

    /// The first byte `request` asked for: 0 without a `Range`; nil without a request,
    /// or for a `Range` that is not one `bytes=a-[b]`.
    public var askedFrom: Int64? {
        guard let request else { return nil }
        guard let header = request.record.range else { return 0 }
        return HTTPByteRange(header)?.first
    }

    /// Whether the request asked from exactly the first byte the disk did not hold.
    public var resumed: Bool { askedFrom == expectedFirst }

    /// The bytes on disk the request asked again: those of the held prefix (the file's
    /// bytes `offset ..< offset + bytesOnDisk`) within the bytes it asked for.
    public var refetchedBytes: Int64 {
        guard let asked = request?.askedBytes else { return 0 }
        let from = max(asked.first, resource.offset)
        let to = min(asked.last.map { $0 + 1 } ?? .max, expectedFirst)
        return to > from ? to - from : 0
    }
}

extension ScenarioTrace {
    /// The resources partly on disk at `restarts[index]`'s kill (bytes > 0), each with the
    /// request after the kill (`requests(afterRestart:)`) that is its resume, in key order.
    /// Nil for a bad index or a kill without a disk snapshot.
    ///
    /// For a whole file, its first request (one for a range `ranges` or the snapshot
    /// names at that path is another resource's). For a range a–b of a file, the first
    /// request for the file that asked for it: one that ends at b (the rest of it,
    /// all of it, or from the file's start to b); one with no `Range`, or one open to the
    /// file's end from before b (all of the file, or all of its rest); and, when
    /// `ranges` knows the file's ranges (the origin's playlists), one for no range of
    /// them that asks as many bytes as the range lacks, or as it has (its rest or all of
    /// it, from another place in the file: a resume counted from the file's start).
    public func rangeResumes(restart index: Int, ranges layout: NamedRanges = NamedRanges()) -> [RangeResume]? {
        guard let snapshot = diskSnapshot(restart: index) else { return nil }
        let after = requests(afterRestart: index)
        let named = snapshot.namedRanges.merging(layout)
        return snapshot.partial.filter { $0.value > 0 }.map { (MediaResourceKey($0.key), $0.key, $0.value) }
            .sorted { $0.0 < $1.0 }.map { key, text, bytes in
                let request = after.first { request in
                    guard request.path == key.path else { return false }
                    let askedFor = named.range(askedBy: request)
                    guard let range = key.range else { return askedFor == nil }
                    if let askedFor { return askedFor == range }
                    guard let asked = request.askedBytes else { return false }
                    guard let last = asked.last else { return asked.first <= range.upperBound }
                    if last == range.upperBound { return true }
                    let count = last - asked.first + 1
                    return layout.ranges[key.path] != nil && [Int64(range.count) - bytes, Int64(range.count)].contains(count)
                }
                return RangeResume(path: text, bytesOnDisk: bytes, request: request)
            }
    }
}

/// A single `bytes=first-[last]` range of an HTTP `Range` header.
struct HTTPByteRange: Hashable {
    var first: Int64
    /// The last byte (inclusive); nil for "to the end".
    var last: Int64?

    init(first: Int64, last: Int64?) {
        self.first = first
        self.last = last
    }

    /// Parses `bytes=a-` or `bytes=a-b` (spaces and case tolerated); nil for anything
    /// else (several ranges, a suffix range `bytes=-n`, garbage).
    init?(_ header: String) {
        let text = header.lowercased().filter { !$0.isWhitespace }
        guard text.hasPrefix("bytes=") else { return nil }
        let parts = text.dropFirst("bytes=".count).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int64(parts[0]) else { return nil }
        if parts[1].isEmpty {
            self.init(first: first, last: nil)
        } else {
            guard let last = Int64(parts[1]), last >= first else { return nil }
            self.init(first: first, last: last)
        }
    }

    /// `bytes=a-` or `bytes=a-b`.
    var header: String { "bytes=\(first)-" + (last.map(String.init) ?? "") }
}
