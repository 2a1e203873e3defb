import BenchCore
import BenchVocabulary
import Foundation

/// Streams recorded by `bench record`, served byte for byte beside (or instead of) the
/// fixture videos: each resource at the path of the URL it was recorded from (its host
/// dropped: relative and absolute-path references in the unchanged playlists then reach
/// this origin), each redirect it met answered again, and each recorded stream listed in
/// the catalog API under its id with a hash manifest made from the recording's, and the
/// license of each of its `skd://` keys (`RecordedContent+Licenses.swift`).
///
/// Loaded once from catalog directories; a `Sendable` value. The bytes stay in the
/// directory and are read when asked for (`resource(at:)`), checked against the
/// manifest's SHA-256.
public struct RecordedContent: Hashable, Sendable {
    /// What the origin answers at a recorded path.
    public enum Entry: Hashable, Sendable {
        /// The bytes of the file at `file` (absolute), served with `contentType`.
        case file(file: String, contentType: String, size: Int64, sha256: String)
        /// A redirect: `status` to `location` (a path on this origin).
        case redirect(status: Int, location: String)
    }

    /// A recorded stream as the catalog API lists it.
    public struct Stream: Hashable, Sendable {
        /// Its manifest entry.
        public var video: RecordedVideo
        /// The path its master playlist is served at.
        public var masterPath: String
        /// The path its poster is served at, when one was recorded.
        public var posterPath: String?
        /// The paths of its resources (redirects not included).
        public var paths: [String]
        /// What each of `paths` is to the stream (a playlist, a segment, a key…).
        public var kinds: [String: RecordedResource.Kind] = [:]
    }

    /// Every recorded stream, in the order the directories and their manifests list them.
    public let streams: [Stream]
    private let entries: [String: Entry]

    /// The hosts a run intercepts (`--intercept`): a stream whose master was recorded from
    /// one of them is fetched live from that origin through the intercepting proxy. The
    /// catalog API lists it at its recorded URL, this origin answers none of its paths
    /// (404: an app that came here did not go through the proxy), and the recording stays
    /// what the judge reads it by (its playlists, its bytes). Empty by default.
    public var liveFrom: [InterceptRule] = [] {
        didSet {
            livePaths = Set(streams.filter(isLive).flatMap(\.paths))
        }
    }
    private var livePaths: Set<String> = []

    /// Whether `stream` is fetched live: its master's host is one `liveFrom` names.
    public func isLive(_ stream: Stream) -> Bool {
        guard let url = URL(string: stream.video.master), let host = url.host else { return false }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        return liveFrom.intercepts(host: host, port: UInt16(clamping: port))
    }

    /// Whether the path (query left out) is one of a stream fetched live.
    public func isLive(path: String) -> Bool { !livePaths.isEmpty && livePaths.contains(path) }

    /// The URL the catalog API lists `stream` at: its recorded URL when it is fetched
    /// live, else the path this origin serves its master at.
    public func sourceURL(of stream: Stream) -> String {
        isLive(stream) ? stream.video.master : stream.masterPath
    }

    /// Nothing recorded.
    public init() {
        streams = []
        entries = [:]
    }

    /// The catalogs in `directories`, merged.
    /// - Throws: `RecordedContentError` for a directory with no readable manifest, a
    ///   resource whose file is missing or of another size, a stream id given twice or
    ///   equal to one of `reservedIDs` (the fixture videos served beside them), or two
    ///   resources with different bytes at one path.
    public static func load(_ directories: [String], reservedIDs: Set<String> = []) throws(RecordedContentError)
        -> RecordedContent
    {
        var streams: [Stream] = []
        var entries: [String: (entry: Entry, from: String)] = [:]
        for directory in directories {
            let catalog: RecordedCatalog
            do {
                guard let loaded = try RecordedCatalog.load(from: directory) else {
                    throw RecordedContentError.noManifest(directory: directory)
                }
                catalog = loaded
            } catch let error as RecordedContentError {
                throw error
            } catch {
                throw .unreadable(directory: directory, reason: "\(error)")
            }
            var byURL: [String: RecordedResource] = [:]
            for resource in catalog.resources {
                byURL[resource.url] = resource
                let file = (directory as NSString).appendingPathComponent(resource.file)
                let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.int64Value
                guard size == resource.size else {
                    throw .damaged(directory: directory, url: resource.url, reason: size == nil
                        ? "its file \(resource.file) is missing" : "its file \(resource.file) is \(size ?? 0) bytes, not \(resource.size)")
                }
                var chain = [resource.url] + resource.redirects.map(\.location)
                let final = chain.removeLast()
                var answers: [(String, Entry)] = [(servedPath(final), .file(
                    file: file, contentType: resource.contentType, size: resource.size, sha256: resource.sha256))]
                for (index, url) in chain.enumerated() {
                    let redirect = resource.redirects[index]
                    answers.append((servedPath(url), .redirect(status: redirect.status, location: servedPath(redirect.location))))
                }
                for (path, entry) in answers {
                    if let earlier = entries[path], !earlier.entry.sameAnswer(as: entry) {
                        throw .conflict(path: path, first: earlier.from, second: resource.url)
                    }
                    entries[path] = (entry, resource.url)
                }
            }
            for video in catalog.videos {
                guard !reservedIDs.contains(video.id) else { throw .reservedID(directory: directory, id: video.id) }
                guard !streams.contains(where: { $0.video.id == video.id }) else {
                    throw .duplicateID(directory: directory, id: video.id)
                }
                let resources = video.resources.compactMap { byURL[$0] }
                let paths = resources.map { servedPath($0.redirects.last?.location ?? $0.url) }
                streams.append(Stream(
                    video: video, masterPath: servedPath(byURL[video.master]?.redirects.last?.location ?? video.master),
                    posterPath: video.poster.map(servedPath), paths: paths,
                    kinds: Dictionary(zip(paths, resources.map(\.kind))) { first, _ in first }))
            }
        }
        return RecordedContent(streams: streams, entries: entries.mapValues(\.entry))
    }

    private init(streams: [Stream], entries: [String: Entry]) {
        self.streams = streams
        self.entries = entries
    }

    /// The stream of each path a recorded stream serves (the first, when two share one):
    /// what the judge files each request of the origin's log under.
    public var videoOfPath: [String: String] {
        var videos: [String: String] = [:]
        for stream in streams {
            for path in stream.paths where videos[path] == nil { videos[path] = stream.video.id }
        }
        return videos
    }

    /// Whether nothing is recorded.
    public var isEmpty: Bool { streams.isEmpty }

    /// The kinds of file the harness finds on an app's disk by content (its segments, init
    /// sections, keys and subtitle files; playlists it reads by name).
    public static let mediaKinds: Set<RecordedResource.Kind> = [.segment, .initSection, .key, .subtitles]

    /// A media file (`mediaKinds`) of stream `a` and one of stream `b` with the same bytes,
    /// as `(path of a's, path of b's)`; nil when they share none. Two downloads of such
    /// streams in one scenario cannot be told apart on the app's disk, where the harness
    /// finds files by content.
    public func sharedMediaFile(_ a: String, _ b: String) -> (String, String)? {
        guard let first = stream(a), let second = stream(b), a != b else { return nil }
        func media(_ stream: Stream) -> [String: String] {
            var hashes: [String: String] = [:]
            for path in stream.paths where Self.mediaKinds.contains(stream.kinds[path] ?? .master) {
                if case .file(_, _, _, let sha256)? = entry(at: path), hashes[sha256] == nil { hashes[sha256] = path }
            }
            return hashes
        }
        let theirs = media(second)
        for (sha256, path) in media(first).sorted(by: { $0.value < $1.value }) {
            if let other = theirs[sha256] { return (path, other) }
        }
        return nil
    }

    /// The answer at request path `path` (its query ignored), if recorded.
    public func entry(at path: String) -> Entry? {
        entries[OriginPath.normalized(path)]
    }

    /// The recorded stream with `id`.
    public func stream(_ id: String) -> Stream? {
        streams.first { $0.video.id == id }
    }

    /// The bytes at `path` as a resource (nil when not a recorded file), read from the
    /// catalog directory.
    /// - Throws: `ContentError.recordedFileChanged` when the file no longer has the
    ///   recorded SHA-256.
    public func resource(at path: String, lastModified: Date) throws(ContentError) -> ContentResource? {
        guard case .file(let file, let contentType, _, let sha256) = entry(at: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw .recordedFileChanged(path: path, file: file, reason: "it cannot be read")
        }
        let resource = ContentResource(contentType: contentType.isEmpty ? "application/octet-stream" : contentType,
            bytes: Array(data), lastModified: lastModified)
        guard resource.sha256 == sha256 else {
            throw .recordedFileChanged(path: path, file: file, reason: "its SHA-256 is not the recorded one")
        }
        return resource
    }

    /// `stream`'s hash manifest, from the recording's hashes: every file it serves, each
    /// as served (nothing recorded is decrypted, so the clear hash is the served one).
    public func hashManifest(of stream: Stream) -> HashManifest {
        var entries: [String: HashManifest.Entry] = [:]
        for path in stream.paths {
            guard case .file(_, _, let size, let sha256) = entry(at: path) else { continue }
            entries[path] = HashManifest.Entry(sha256: sha256, byteCount: Int(size), clearSHA256: sha256, clearByteCount: Int(size))
        }
        return HashManifest(seed: 0, entries: entries)
    }

    /// The path an `http(s)` URL is served at: its percent-encoded path (`/` when empty).
    static func servedPath(_ url: String) -> String {
        guard let components = URLComponents(string: url) else { return url }
        let path = components.percentEncodedPath
        return path.isEmpty ? "/" : path
    }
}

extension RecordedContent.Entry {
    /// Whether two entries answer the same (the same bytes, or the same redirect).
    func sameAnswer(as other: Self) -> Bool {
        switch (self, other) {
        case (.file(_, _, let size, let sha), .file(_, _, let otherSize, let otherSHA)): size == otherSize && sha == otherSHA
        default: self == other
        }
    }
}

/// Why recorded catalogs cannot be served; each says what to do.
public enum RecordedContentError: Error, Hashable, Sendable, CustomStringConvertible {
    case noManifest(directory: String)
    case unreadable(directory: String, reason: String)
    case damaged(directory: String, url: String, reason: String)
    case conflict(path: String, first: String, second: String)
    case duplicateID(directory: String, id: String)
    case reservedID(directory: String, id: String)

    public var description: String {
        switch self {
        case .noManifest(let directory):
            "\(directory) has no \(RecordedCatalog.fileName): it is not a catalog `bench record` wrote (bench record URL --out \(directory))"
        case .unreadable(let directory, let reason):
            "\(directory): \(reason)"
        case .damaged(let directory, let url, let reason):
            "\(directory): \(url) cannot be served: \(reason); run the same bench record command again to fetch it again"
        case .conflict(let path, let first, let second):
            "two recorded resources would be served at \(path) with different bytes (\(first) and \(second)): record them "
                + "into separate catalogs and serve one at a time"
        case .duplicateID(let directory, let id):
            "\(directory): a stream named \(id) is recorded in an earlier catalog too; give one another id (bench record ID=URL)"
        case .reservedID(let directory, let id):
            "\(directory): \(id) is also a fixture video's id; record it under another id (bench record ID=URL), or serve the "
                + "recorded catalogs alone (--recorded-only)"
        }
    }
}
