/// The origin's renditions of the videos a scenario downloaded: each media playlist's
/// path with its segment paths in order (`/videos/clear/400k/index.m3u8` →
/// `/videos/clear/400k/seg0.ts`, …), as the origin's own playlists name them, and each
/// segment and init section as a resource (with its byte range, for a single-file stream).
///
/// Made by the runner from its origin (`OriginCatalogView.layout(ofVideos:)`) and put in
/// `PropertyContext.renditions`; `integrity` and `offline-playback` read from it which
/// renditions an app chose (those whose segments the origin sent it), `crash-recovery`
/// which byte range a request or a claim was for. A value.
public struct OriginRenditions: Sendable, Hashable {
    /// Rendition playlist path → its segment paths, in order.
    public let segments: [String: [String]]
    /// Rendition playlist path → its segments as resources (path and byte range), in order.
    public let resources: [String: [MediaResourceKey]]
    /// The byte ranges the playlists name (segments and init sections), by path.
    public let ranges: NamedRanges
    private let renditionOfSegment: [String: String]

    /// The renditions of `segments` (rendition playlist path → segment paths in order),
    /// each segment a whole file.
    public init(_ segments: [String: [String]] = [:]) {
        self.init(resources: segments.mapValues { $0.map { MediaResourceKey(path: $0) } })
    }

    /// The renditions of `resources` (rendition playlist path → its segments in order),
    /// and the init sections their playlists name.
    public init(resources: [String: [MediaResourceKey]], initSections: [MediaResourceKey] = []) {
        self.resources = resources
        segments = resources.mapValues { $0.map(\.path) }
        ranges = NamedRanges(resources.values.joined().map { $0 } + initSections)
        var index: [String: String] = [:]
        for rendition in resources.keys.sorted() {
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

    /// The resources a claim of segment `index` at `path` can be (the segment at that
    /// position of each rendition whose segment there is at `path`), in rendition order;
    /// none when no rendition names it.
    public func resources(ofSegment path: String, index: Int) -> [MediaResourceKey] {
        let path = OriginPath.normalized(path)
        var found: [MediaResourceKey] = []
        for rendition in resources.keys.sorted() {
            guard let list = resources[rendition], list.indices.contains(index), list[index].path == path,
                !found.contains(list[index])
            else { continue }
            found.append(list[index])
        }
        return found
    }
}
