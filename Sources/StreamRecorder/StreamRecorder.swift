import BenchCore
import Crypto
import Foundation

/// Records HLS streams into a catalog directory (`bench record`): every playlist,
/// variant, rendition and I-frame playlist, and every segment, init section, AES-128 key
/// and subtitle file they name, byte for byte, with a manifest (`RecordedCatalog`).
///
/// Resumable: a resource whose file is already there with the size and SHA-256 the
/// manifest gives is kept, not fetched (a second run over a whole recording makes no
/// request at all: the playlists are read from the copies); a missing or damaged one is
/// fetched again. The manifest is written after every playlist and every 2 s, so a
/// failure or a kill keeps what was recorded.
public final class StreamRecorder {
    /// A stream to record.
    public struct Request: Hashable, Sendable {
        /// Its catalog id; nil derives one from the URL (the playlist's directory name).
        public var id: String?
        /// Its master (or only media) playlist.
        public var url: URL
        /// A poster image to record with it.
        public var poster: URL?

        /// Creates the request.
        public init(id: String? = nil, url: URL, poster: URL? = nil) {
            self.id = id
            self.url = url
            self.poster = poster
        }
    }

    /// Where a recording is.
    public struct Progress: Hashable, Sendable {
        /// The stream being recorded.
        public var video: String
        /// Resources done (fetched or kept) of the stream, and how many are known so far.
        public var done: Int
        public var known: Int
        /// Of `done`, how many were fetched (the rest were kept: already whole on disk).
        public var fetched: Int
        /// Bytes fetched so far, over every stream.
        public var bytesFetched: Int64
    }

    /// What a recording did, per stream.
    public struct Outcome: Hashable, Sendable {
        /// The stream's catalog entry.
        public var video: RecordedVideo
        /// Its resources, and of them how many were fetched and how many kept.
        public var resources: Int
        public var fetched: Int
        public var kept: Int
        /// The bytes of all its resources.
        public var bytes: Int64
    }

    private let directory: String
    private let fetcher: RecordFetcher
    private let jobs: Int
    private let progress: @Sendable (Progress) -> Void
    private var catalog: RecordedCatalog
    private var bytesFetched: Int64 = 0
    private var lastSave: UInt64 = 0

    /// A recorder into `directory` (created if missing; an existing recording there is
    /// resumed), trusting the system's CAs and `caFile`'s, fetching `jobs` resources at
    /// a time and telling `progress` after each.
    /// - Throws: `RecordError.storage` when the directory or its manifest cannot be used.
    public init(
        directory: String, caFile: String? = nil, jobs: Int = 4, progress: @escaping @Sendable (Progress) -> Void = { _ in }
    ) throws(RecordError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .storage(path: directory, reason: "cannot be made (\(error.localizedDescription))")
        }
        do { catalog = try RecordedCatalog.load(from: directory) ?? RecordedCatalog() } catch {
            throw .storage(path: error.path, reason: error.reason)
        }
        self.directory = directory
        self.jobs = max(1, jobs)
        self.progress = progress
        fetcher = try RecordFetcher(caFile: caFile)
    }

    /// Records each of `requests`, one after another, and returns what each took.
    /// Call once; the recorder's connections are closed at the end.
    /// - Throws: `RecordError` at the first resource that cannot be recorded; the
    ///   manifest then holds everything recorded before it.
    public func record(_ requests: [Request]) async throws(RecordError) -> [Outcome] {
        var outcomes: [Outcome] = []
        do {
            let ids = try Self.ids(for: requests, existing: catalog.videos)
            for (request, id) in zip(requests, ids) {
                outcomes.append(try await record(request, id: id))
            }
        } catch {
            await fetcher.shutdown()
            throw error
        }
        await fetcher.shutdown()
        return outcomes
    }

    /// The catalog ids of `requests`: given, or derived from the URL; a stream recorded
    /// before from the same URL keeps its id.
    static func ids(for requests: [Request], existing: [RecordedVideo]) throws(RecordError) -> [String] {
        var ids: [String] = []
        for request in requests {
            let id = request.id ?? existing.first { $0.master == request.url.absoluteString }?.id
                ?? derivedID(request.url, taken: Set(ids))
            guard CatalogPaths.isSafeID(id) else {
                throw .badArguments("\(id) is not a usable video id: use letters, digits, '-' and '_' (e.g. my-show=URL)")
            }
            guard !ids.contains(id) else { throw .badArguments("two streams are named \(id); give each its own id (ID=URL)") }
            ids.append(id)
        }
        return ids
    }

    private static func derivedID(_ url: URL, taken: Set<String>) -> String {
        let components = url.pathComponents.filter { $0 != "/" }
        let base = components.count >= 2 ? components[components.count - 2] : (url.host ?? "stream")
        let safe = String(base.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "-" })
        var id = safe.isEmpty ? "stream" : safe
        var next = 2
        while taken.contains(id) {
            id = "\(safe)-\(next)"
            next += 1
        }
        return id
    }

    // MARK: One stream

    private func record(_ request: Request, id: String) async throws(RecordError) -> Outcome {
        var walk = Walk(video: id)
        walk.seen.insert(request.url.absoluteString)
        var playlists: [(url: URL, kind: RecordedResource.Kind, namedBy: String?)] = [(request.url, .master, nil)]
        walk.known = 1
        var duration = 0.0
        var protection = "clear"
        var licenseKeys: [String] = []
        while !playlists.isEmpty {
            let (url, kind, namedBy) = playlists.removeFirst()
            let (resource, finalURL) = try await obtain(url, kind: kind, namedBy: namedBy, walk: &walk)
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: path(of: resource))) } catch {
                throw .storage(path: path(of: resource), reason: "cannot be read (\(error.localizedDescription))")
            }
            let references = try PlaylistReferences(data, from: finalURL, kind: kind)
            if kind == .master, !references.isMaster { setKind(.media, of: resource.url) }
            if kind != .iframes, kind != .subtitles { duration = max(duration, references.duration) }
            if references.protection == "sample-aes" || (references.protection == "aes-128" && protection == "clear") {
                protection = references.protection
            }
            licenseKeys += references.licenseKeys.filter { !licenseKeys.contains($0) }
            let named = "\(finalURL.absoluteString)"
            // A master names playlists, and keys (EXT-X-SESSION-KEY); a media playlist, files.
            let new = references.references.filter { walk.seen.insert($0.url.absoluteString).inserted }
            walk.known += new.count
            let leaves = new.filter { !references.isMaster || $0.kind == .key }
            for reference in new where references.isMaster && reference.kind != .key {
                playlists.append((reference.url, reference.kind, "\(named) line \(reference.line)"))
            }
            try await obtainAll(leaves, namedBy: named, walk: &walk)
            try save()
        }
        if let poster = request.poster {
            walk.known += 1
            _ = try await obtain(poster, kind: .poster, namedBy: nil, walk: &walk)
        }
        let video = RecordedVideo(
            id: id, name: catalog.videos.first { $0.id == id }?.name ?? id, master: request.url.absoluteString,
            duration: duration, poster: request.poster?.absoluteString, protection: protection, licenseKeys: licenseKeys,
            resources: walk.urls.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } })
        catalog.videos.removeAll { $0.id == id }
        catalog.videos.append(video)
        try save()
        let bytes = walk.urls.compactMap { catalog.resource(for: $0)?.size }.reduce(0, +)
        return Outcome(video: video, resources: walk.done, fetched: walk.fetched, kept: walk.done - walk.fetched, bytes: bytes)
    }

    /// A stream's walk so far.
    private struct Walk {
        var video: String
        var seen: Set<String> = []
        var urls: [String] = []
        var known = 0
        var done = 0
        var fetched = 0
    }

    /// The leaves of a media playlist, `jobs` at a time.
    private func obtainAll(
        _ references: [PlaylistReferences.Reference], namedBy: String, walk: inout Walk
    ) async throws(RecordError) {
        var pending = references[...]
        while !pending.isEmpty {
            let batch = pending.prefix(jobs)
            pending = pending.dropFirst(batch.count)
            var toFetch: [(PlaylistReferences.Reference, String)] = []
            for reference in batch {
                if let kept = try await intact(reference.url) {
                    walk.urls.append(kept.url)
                    walk.done += 1
                } else {
                    toFetch.append((reference, file(for: reference.url)))
                }
            }
            let fetcher = self.fetcher
            let results = await withTaskGroup(of: (Int, Result<RecordFetcher.Fetched, RecordError>).self) { group in
                for (index, item) in toFetch.enumerated() {
                    let (reference, file) = item
                    let path = (directory as NSString).appendingPathComponent(file)
                    group.addTask {
                        do throws(RecordError) {
                            let fetched = try await fetcher.fetch(
                                reference.url, into: path, namedBy: "\(namedBy) line \(reference.line)")
                            return (index, .success(fetched))
                        } catch { return (index, .failure(error)) }
                    }
                }
                var results: [(Int, Result<RecordFetcher.Fetched, RecordError>)] = []
                for await result in group { results.append(result) }
                return results.sorted { $0.0 < $1.0 }.map(\.1)
            }
            for ((reference, file), result) in zip(toFetch, results) {
                switch result {
                case .success(let fetched):
                    remember(reference.url, kind: reference.kind, file: file, fetched)
                    walk.urls.append(reference.url.absoluteString)
                    walk.done += 1
                    walk.fetched += 1
                case .failure(let error):
                    try save()
                    throw error
                }
            }
            tell(walk)
            // A long playlist's progress survives a kill: the manifest every 2 s.
            if DispatchTime.now().uptimeNanoseconds - lastSave > 2_000_000_000 { try save() }
        }
    }

    /// `url`'s resource: kept when whole on disk, fetched otherwise; and the URL its
    /// relative references resolve against (the last redirect's).
    private func obtain(
        _ url: URL, kind: RecordedResource.Kind, namedBy: String?, walk: inout Walk
    ) async throws(RecordError) -> (RecordedResource, URL) {
        walk.urls.append(url.absoluteString)
        if let kept = try await intact(url) {
            walk.done += 1
            tell(walk)
            return (kept, kept.redirects.last.flatMap { URL(string: $0.location) } ?? url)
        }
        let file = file(for: url)
        let fetched = try await fetcher.fetch(url, into: (directory as NSString).appendingPathComponent(file), namedBy: namedBy)
        let resource = remember(url, kind: kind, file: file, fetched)
        walk.done += 1
        walk.fetched += 1
        tell(walk)
        return (resource, fetched.finalURL)
    }

    @discardableResult
    private func remember(_ url: URL, kind: RecordedResource.Kind, file: String, _ fetched: RecordFetcher.Fetched)
        -> RecordedResource
    {
        let resource = RecordedResource(
            url: url.absoluteString, kind: kind, file: file, contentType: fetched.contentType, size: fetched.size,
            sha256: fetched.sha256, redirects: fetched.redirects.map { RecordedRedirect(status: $0.status, location: $0.location) })
        bytesFetched += fetched.size
        if let index = catalog.resources.firstIndex(where: { $0.url == resource.url }) {
            catalog.resources[index] = resource
        } else {
            catalog.resources.append(resource)
        }
        return resource
    }

    private func setKind(_ kind: RecordedResource.Kind, of url: String) {
        guard let index = catalog.resources.firstIndex(where: { $0.url == url }) else { return }
        catalog.resources[index].kind = kind
    }

    /// The manifest's resource for `url` when its file is there, whole: the same size
    /// and SHA-256. Hashes off the cooperative pool.
    private func intact(_ url: URL) async throws(RecordError) -> RecordedResource? {
        guard let resource = catalog.resource(for: url.absoluteString) else { return nil }
        let path = path(of: resource)
        let whole = await OffPool.run { () -> Bool in
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                (attributes[.size] as? NSNumber)?.int64Value == resource.size,
                let data = try? Data(contentsOf: URL(fileURLWithPath: path))
            else { return false }
            return CatalogPaths.hex(SHA256.hash(data: data)) == resource.sha256
        }
        return whole ? resource : nil
    }

    private func path(of resource: RecordedResource) -> String {
        (directory as NSString).appendingPathComponent(resource.file)
    }

    /// Where `url`'s bytes go: `files/HOST[_PORT]/PATH`, each component made safe, a
    /// query kept as a suffix of its hash; the manifest's file when it has one.
    private func file(for url: URL) -> String {
        if let known = catalog.resource(for: url.absoluteString) { return known.file }
        var file = CatalogPaths.file(for: url)
        let taken = Set(catalog.resources.map(\.file))
        var next = 2
        let base = file
        while taken.contains(file) {
            file = "\(base)~\(next)"
            next += 1
        }
        return file
    }

    private func save() throws(RecordError) {
        do { try catalog.write(to: directory) } catch { throw .storage(path: error.path, reason: error.reason) }
        lastSave = DispatchTime.now().uptimeNanoseconds
    }

    private func tell(_ walk: Walk) {
        progress(Progress(video: walk.video, done: walk.done, known: walk.known, fetched: walk.fetched, bytesFetched: bytesFetched))
    }
}

/// How recorded URLs become files and ids.
enum CatalogPaths {
    /// `files/HOST[_PORT]/PATH`: each path component reduced to ASCII letters, digits,
    /// `.`, `-` and `_` (others become `_`; `.` and `..` become `_`), an empty last
    /// component `index`, a query kept as `@` and 8 hex digits of its SHA-256.
    static func file(for url: URL) -> String {
        let host = (url.host ?? "host") + (url.port.map { "_\($0)" } ?? "")
        // URLComponents keeps a trailing `/` (URL.path drops it) and decodes `%20`.
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.path ?? url.path
        var components = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(safe)
        if path.isEmpty || path.hasSuffix("/") { components = Array(components.dropLast()) + ["index"] }
        var file = (["files", safe(Substring(host))] + components).joined(separator: "/")
        if let query = url.query, !query.isEmpty {
            file += "@" + hex(SHA256.hash(data: Data(query.utf8)).prefix(4))
        }
        return file
    }

    private static func safe(_ component: Substring) -> String {
        guard !component.isEmpty, component != ".", component != ".." else { return "_" }
        return String(component.map { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) ? $0 : "_" })
    }

    /// `bytes` as lowercase hex: how the manifest writes a SHA-256.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `id` can name a video: 1 to 64 ASCII letters, digits, `-` and `_`.
    static func isSafeID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 64 && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }
}
