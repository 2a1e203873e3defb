/// A segment the agent found partly stored at a relaunch, and the first origin request
/// for it after the kill. Shared by `crash-recovery` and its tests.
public struct RangeResume: Sendable, Hashable {
    /// The partial segment as the agent reported it at its launch.
    public var partial: TracedPartialSegment
    /// The first request for it that started after the kill (and before the next one);
    /// nil when there was none (the download was not resumed in that window).
    public var request: TracedOriginRequest?
    /// The `Range` that resumes it: `bytes=<bytes>-` for a whole resource, the rest of
    /// its own range (`bytes=<a+bytes>-<b>`) for a byte-range segment.
    public var expectedRange: String
    /// Whether `request` asked for exactly the bytes after those kept (by its first
    /// byte, and its last for a byte-range segment); false without a request.
    public var resumed: Bool
}

extension ScenarioTrace {
    /// The partial segments the agent reported at the launch after `restarts[index]`'s
    /// kill, each with the first origin request for it that started after the kill and
    /// before the next one (nil for a bad index).
    ///
    /// A byte-range segment's request is one for its path whose first byte falls in its
    /// range; a whole resource's is any request for its path.
    public func rangeResumes(restart index: Int) -> [RangeResume]? {
        guard restarts.indices.contains(index) else { return nil }
        let kill = restarts[index].kill.t
        let nextKill = index + 1 < restarts.count ? restarts[index + 1].kill.t : UInt64.max
        let after = originRequests.filter { $0.start > kill && $0.start < nextKill }.sorted { $0.start < $1.start }
        return partialSegments.filter { $0.t >= kill && $0.t < nextKill && $0.bytes > 0 }.map { partial in
            let own = partial.byteRange.flatMap(HTTPByteRange.init)
            let request = after.first { request in
                guard request.path == partial.path else { return false }
                guard let own else { return true }
                guard let first = request.record.range.flatMap(HTTPByteRange.init)?.first else { return false }
                return first >= own.first && first <= (own.last ?? .max)
            }
            let expected = HTTPByteRange(
                first: (own?.first ?? 0) + partial.bytes, last: own?.last)
            let asked = request?.record.range.flatMap(HTTPByteRange.init)
            return RangeResume(
                partial: partial, request: request, expectedRange: expected.header, resumed: asked == expected)
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
