import BenchCore

/// A media resource of the origin as the harness's disk reads name it: a path (its query
/// left out), or a byte range of the file at that path (an EXT-X-BYTERANGE segment, an
/// EXT-X-MAP's BYTERANGE) written `path#bytes=first-last`, as `segmentHashes` claims
/// name ranges too. The disk at a kill (`diskAtKill`) names a range it holds whole or in
/// part this way: a partial copy of a range is a prefix of its bytes, counted from its
/// first byte. A value.
public struct MediaResourceKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The origin path of the file.
    public var path: String
    /// The bytes of the file the resource is (first...last, inclusive); nil for the whole file.
    public var range: ClosedRange<Int64>?

    /// The whole file at `path`, or `range` of it.
    public init(path: String, range: ClosedRange<Int64>? = nil) {
        self.path = path
        self.range = range
    }

    /// Parses `path` or `path#bytes=first-last` (the path normalized as
    /// `OriginPath.normalized` does); any other fragment names the whole file.
    public init(_ text: String) {
        let marker = "#bytes="
        guard let cut = text.range(of: marker) else {
            self.init(path: OriginPath.normalized(text))
            return
        }
        let bounds = text[cut.upperBound...].split(separator: "-", omittingEmptySubsequences: false)
        let range: ClosedRange<Int64>? = if bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]),
            first >= 0, last >= first { first...last } else { nil }
        self.init(path: OriginPath.normalized(String(text[..<cut.lowerBound])), range: range)
    }

    /// `path`, or `path#bytes=first-last`.
    public var description: String {
        range.map { "\(path)#bytes=\($0.lowerBound)-\($0.upperBound)" } ?? path
    }

    /// The resource's first byte in the file: its range's first, 0 for the whole file.
    public var offset: Int64 { range?.lowerBound ?? 0 }

    /// The text of a disk read's key, normalized (`init(_:)` then `description`).
    public static func normalized(_ text: String) -> String { MediaResourceKey(text).description }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.path, lhs.offset, lhs.range?.upperBound ?? -1) < (rhs.path, rhs.offset, rhs.range?.upperBound ?? -1)
    }
}

/// The byte ranges of files that the origin's playlists name as resources of their own
/// (segments and init sections with a BYTERANGE), by path, and what a request for such a
/// file was for. Pure; `crash-recovery`'s disk rules tell by it which range of a
/// single-file stream a request asked for.
public struct NamedRanges: Sendable, Hashable {
    /// Path → its named ranges, sorted.
    public private(set) var ranges: [String: [ClosedRange<Int64>]] = [:]

    /// The ranges of `keys` (whole files add nothing).
    public init(_ keys: some Sequence<MediaResourceKey> = [MediaResourceKey]()) {
        for key in keys { add(key) }
    }

    /// Adds `key`'s range, once.
    public mutating func add(_ key: MediaResourceKey) {
        guard let range = key.range, !(ranges[key.path] ?? []).contains(range) else { return }
        ranges[key.path, default: []].append(range)
        ranges[key.path]?.sort { ($0.lowerBound, $0.upperBound) < ($1.lowerBound, $1.upperBound) }
    }

    /// These and `other`'s.
    public func merging(_ other: NamedRanges) -> NamedRanges {
        var merged = self
        for (path, list) in other.ranges { for range in list { merged.add(MediaResourceKey(path: path, range: range)) } }
        return merged
    }

    /// The named range `request` asked for, or the rest of: its `Range` ends where the
    /// range ends and begins inside it (a range fetched whole, or resumed); nil for a
    /// request without a bounded `Range`, or one for no named range.
    public func range(askedBy request: TracedOriginRequest) -> ClosedRange<Int64>? {
        guard let asked = request.askedBytes, let last = asked.last else { return nil }
        return ranges[request.path]?.first { $0.upperBound == last && $0.contains(asked.first) }
    }
}

extension TracedOriginRequest {
    /// The bytes its `Range` asked for: from 0 to the end without one; nil for a `Range`
    /// that is not one `bytes=a-[b]`.
    var askedBytes: HTTPByteRange? {
        guard let header = record.range else { return HTTPByteRange(first: 0, last: nil) }
        return HTTPByteRange(header)
    }

    /// The bytes of the file the origin sent: from its `Range`'s first for a 206, else from 0.
    var servedBytes: Range<Int64> {
        let first = record.status == 206 ? record.range.flatMap(HTTPByteRange.init)?.first ?? 0 : 0
        return first..<(first + Int64(record.bytesSent))
    }
}

extension HTTPByteRange {
    /// Whether these bytes and `range` share one.
    func overlaps(_ range: ClosedRange<Int64>) -> Bool {
        first <= range.upperBound && (last ?? .max) >= range.lowerBound
    }
}
