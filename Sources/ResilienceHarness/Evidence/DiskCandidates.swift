import BenchCore

/// What the harness's disk read at a kill looks for: the media resources the app may
/// hold (`resources`), and those it was fetching when it died (`fetching`: a file that is
/// a prefix of one of these is a partial copy of it), from the requests the origin began
/// by then. A value; a pure function of the media and the requests.
///
/// A resource is a whole file (`/videos/clear/400k/seg3.ts`, a recorded segment, init
/// section, key or subtitle file) or a byte range of one (`MediaResourceKey`: an
/// EXT-X-BYTERANGE segment or an EXT-X-MAP's BYTERANGE, as the playlist names it). Only the
/// resources at a path the app requested are looked for: a file can only hold what the
/// origin sent it, and the origin logs a response when it ends, before its last byte
/// reaches the app, so a whole copy on disk has its request in the log (or among the
/// responses in progress).
///
/// Which resources a request was fetching:
/// - the byte ranges of its path that the first byte of its `Range` lies in (a range
///   asked whole, or resumed from inside it);
/// - the whole file, for a request with no `Range`, one open to the file's end
///   (`bytes=N-`, a whole file resumed), one whose first byte lies in no range the
///   playlists name, or one that does not parse.
struct DiskCandidates: Sendable, Hashable {
    /// The resources to identify files against, sorted.
    var resources: [MediaResourceKey]
    /// Those the app was fetching.
    var fetching: Set<MediaResourceKey>

    /// One request as the disk read needs it: its path (query left out) and its `Range`.
    struct Request: Sendable, Hashable {
        var path: String
        var range: String?
    }

    /// The candidates among `media` (every media resource of the videos the harness
    /// requested) given `requests` (the origin's, begun by the kill).
    init(media: some Sequence<MediaResourceKey>, requests: [Request]) {
        let paths = Set(requests.map(\.path))
        resources = Set(media).filter { paths.contains($0.path) }.sorted()
        let named = NamedRanges(resources)
        let whole = Set(resources.filter { $0.range == nil })
        var fetching: Set<MediaResourceKey> = []
        for request in requests {
            let asked = request.range.flatMap(HTTPByteRange.init)
            let within = asked.map { asked in (named.ranges[request.path] ?? []).filter { $0.contains(asked.first) } } ?? []
            for range in within { fetching.insert(MediaResourceKey(path: request.path, range: range)) }
            let file = MediaResourceKey(path: request.path)
            if within.isEmpty || asked?.last == nil, whole.contains(file) { fetching.insert(file) }
        }
        self.fetching = fetching
    }
}
