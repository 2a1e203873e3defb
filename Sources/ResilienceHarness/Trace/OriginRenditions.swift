/// The origin's renditions of the videos a scenario downloaded: each media playlist's
/// path with its segment paths in order (`/videos/clear/400k/index.m3u8` →
/// `/videos/clear/400k/seg0.ts`, …), as the origin's own playlists name them.
///
/// Made by the runner from its origin (`OriginCatalogView.layout(ofVideos:)`) and put in
/// `PropertyContext.renditions`; `integrity` and `offline-playback` read from it which
/// renditions an app chose (those whose segments the origin sent it). A value.
public struct OriginRenditions: Sendable, Hashable {
    /// Rendition playlist path → its segment paths, in order.
    public let segments: [String: [String]]
    private let renditionOfSegment: [String: String]

    /// The renditions of `segments` (rendition playlist path → segment paths in order).
    public init(_ segments: [String: [String]] = [:]) {
        self.segments = segments
        var index: [String: String] = [:]
        for rendition in segments.keys.sorted() {
            for path in segments[rendition] ?? [] where index[path] == nil { index[path] = rendition }
        }
        renditionOfSegment = index
    }

    /// Whether nothing is known (a context made without an origin).
    public var isEmpty: Bool { segments.isEmpty }

    /// The rendition whose playlist names the segment at `path` (query ignored), if any.
    public func rendition(ofSegment path: String) -> String? {
        renditionOfSegment[OriginPath.normalized(path)]
    }
}
