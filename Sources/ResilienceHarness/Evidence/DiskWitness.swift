import FixtureOrigin
import Foundation
import Synchronization

/// The harness's own look at the app's disk after each SIGKILL (`ScenarioContext.kill`):
/// which files hold which origin resources, whole or in part, told by content alone.
/// One per scenario (its digests are of that scenario's origin).
///
/// Owns the videos the harness requested, the media resources of the recorded streams
/// among them (read from the origin's playlists) and the digests of what the origin
/// serves for each resource, made on first need and kept for the scenario. `Sendable`:
/// each behind a `Mutex`, held for dictionary operations only. `snapshot` reads files and
/// makes content: call it off the actors.
///
/// The candidates (`DiskCandidates`) are the media resources of the requested videos at
/// the paths the app had requested before the kill: for a fixture video its segments,
/// subtitle segments and key (`ContentPath`, one whole resource per path: the fixture's
/// playlists carry no byte range and no init section); for a recorded stream
/// (`bench --catalog`) every segment, init section (EXT-X-MAP), key and subtitle file its
/// playlists name, each a whole file or a byte range of one (EXT-X-BYTERANGE, a MAP's
/// BYTERANGE: `path#bytes=a-b`, whose bytes are that slice of the recorded file), and the
/// whole file of each path byte ranges cut (an app may keep it whole). Only what was
/// fetched is made and hashed: every variant of every video would cost gigabytes of
/// generation at full scale.
final class DiskWitness: Sendable {
    private let requested = Mutex<Set<String>>([])
    private let digests = Mutex<[MediaResourceKey: OriginResourceDigest?]>([:])
    private let recordedMedia = Mutex<[String: [MediaResourceKey]]>([:])

    init() {}

    /// The harness requested a download of `video`: its resources may be on the disk.
    func requested(_ video: String) {
        _ = requested.withLock { $0.insert(video) }
    }

    /// The files under `storage` identified against what `origin` serves for the media
    /// resources of the requested videos the app had requested before `killedAt` (trace
    /// time; `epoch` turns the origin's monotonic clock into it). The responses in
    /// progress are read before the log, so none begun before the kill is missed (the
    /// ones the kill cut are still in progress, or just logged).
    func snapshot(storage: String, origin: OriginServer, killedAt: UInt64, epoch: UInt64) -> DiskIdentification {
        let records = (origin.responsesInProgress + origin.requestLog).filter { $0.startedAtNanoseconds <= epoch &+ killedAt }
        return snapshot(storage: storage, store: origin.store, requests: records.map {
            DiskCandidates.Request(path: OriginPath.normalized($0.path), range: $0.range)
        })
    }

    /// The files under `storage` identified against what `store` serves for the media
    /// resources of the requested videos, given the origin's `requests` begun by the kill.
    func snapshot(storage: String, store: ContentStore, requests: [DiskCandidates.Request]) -> DiskIdentification {
        let videos = requested.withLock { $0 }
        let fixture = requests.compactMap { request in
            ContentPath(request.path).flatMap { path in
                Self.isMedia(path) && videos.contains(path.videoID ?? "") && store.recorded.stream(path.videoID ?? "") == nil
                    ? MediaResourceKey(path: path.path) : nil
            }
        }
        let recorded = videos.filter { store.recorded.stream($0) != nil }.sorted().flatMap { media(ofRecorded: $0, store: store) }
        let candidates = DiskCandidates(media: fixture + recorded, requests: requests)
        let files = FileBytes(store: store)
        let resources = candidates.resources.compactMap { digest(of: $0, files: files) }
        let matcher = DiskContentMatcher(resources: resources, fetching: Set(candidates.fetching.map(\.description))) { text in
            files.bytes(of: MediaResourceKey(text))
        }
        return matcher.identify(DiskFile.walk(storage), in: storage)
    }

    /// The media resources of the recorded stream `video`, read once from its playlists.
    private func media(ofRecorded video: String, store: ContentStore) -> [MediaResourceKey] {
        if let known = recordedMedia.withLock({ $0[video] }) { return known }
        let made = Self.media(of: OriginCatalogView(store: store).renditions(ofVideo: video))
        recordedMedia.withLock { $0[video] = made }
        return made
    }

    /// Every segment, init section and key file of `renditions` (subtitle files are
    /// their subtitle renditions' segments), and the whole file of each path a byte
    /// range names, each once, in order.
    static func media(of renditions: [OriginRendition]) -> [MediaResourceKey] {
        var seen: Set<MediaResourceKey> = []
        var found: [MediaResourceKey] = []
        func add(_ key: MediaResourceKey) {
            if seen.insert(key).inserted { found.append(key) }
            if key.range != nil, seen.insert(MediaResourceKey(path: key.path)).inserted {
                found.append(MediaResourceKey(path: key.path))
            }
        }
        for segment in renditions.flatMap(\.segments) {
            if let map = segment.map { add(map.resource) }
            if case .path(let path)? = segment.key?.reference { add(MediaResourceKey(path: path)) }
            add(segment.resource)
        }
        return found
    }

    /// The digest of what the origin serves for `key` (the bytes of its range, for a
    /// range), made once; nil when it serves nothing there (or the range lies beyond).
    private func digest(of key: MediaResourceKey, files: FileBytes) -> OriginResourceDigest? {
        if let known = digests.withLock({ $0[key] }) { return known }
        let made = files.bytes(of: key).map { OriginResourceDigest(path: key.description, bytes: $0) }
        digests.withLock { $0[key] = made }
        return made
    }

    /// Whether the app may keep `path` as it was served: a segment, a subtitle segment
    /// or a key (playlists it rewrites; the catalog JSON and images it need not keep).
    static func isMedia(_ path: ContentPath) -> Bool {
        switch path {
        case .segment, .subtitleSegment, .key: true
        default: false
        }
    }
}

/// What the origin serves at each path, read once per disk read (a single-file stream's
/// byte ranges are slices of one file: it is read once for all of them).
private final class FileBytes: Sendable {
    let store: ContentStore
    private let files = Mutex<[String: [UInt8]?]>([:])

    init(store: ContentStore) {
        self.store = store
    }

    /// The bytes of `key`: the file at its path, or its range of it (nil beyond the file's end).
    func bytes(of key: MediaResourceKey) -> [UInt8]? {
        let file: [UInt8]?
        if let known = files.withLock({ $0[key.path] }) {
            file = known
        } else {
            file = ((try? store.loadResource(atPath: key.path)) ?? nil)?.bytes
            files.withLock { $0[key.path] = file }
        }
        guard let file, let range = key.range else { return file }
        guard range.upperBound < Int64(file.count) else { return nil }
        return Array(file[Int(range.lowerBound)...Int(range.upperBound)])
    }
}

extension ContentPath {
    /// The video a content path belongs to; nil for the video list.
    var videoID: String? {
        switch self {
        case .videoList: nil
        case .video(let id), .masterPlaylist(let id), .mediaPlaylist(let id, _), .segment(let id, _, _),
            .subtitlePlaylist(let id, _), .subtitleSegment(let id, _, _), .key(let id), .poster(let id),
            .thumbnail(let id), .hashManifest(let id):
            id
        }
    }
}
