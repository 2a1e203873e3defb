import FixtureOrigin
import Foundation
import Synchronization

/// The harness's own look at the app's disk after each SIGKILL (`ScenarioContext.kill`):
/// which files hold which origin resources, whole or in part, told by content alone.
/// One per scenario (its digests are of that scenario's origin).
///
/// Owns the videos the harness requested and the digests of what the origin serves at
/// each media path, made on first need and kept for the scenario (content is small
/// and synthetic by default). `Sendable`: both behind a `Mutex`, held for dictionary
/// operations only. `snapshot` reads files and makes content: call it off the actors.
///
/// The candidates are the media paths (segments, subtitle segments, keys) of the
/// requested videos that the app had requested before the kill: a file can only hold
/// what the origin sent it, and the origin logs a response when it ends, before its
/// last byte reaches the app through the conditioner, so a whole copy on disk always
/// has its request in the log (or, cut by the kill, among the responses in progress).
/// Only what was fetched is made and hashed: every variant of every video would cost
/// gigabytes of generation at full scale.
///
/// Byte-range resources (EXT-X-BYTERANGE, `path#bytes=a-b`) and init sections
/// (EXT-X-MAP) are not handled: the fixture origin's playlists never carry either
/// (`Catalog+Playlists`: whole `seg{N}.ts`/`.vtt` segments and one key per video), so
/// every origin path of a scenario is one whole resource.
final class DiskWitness: Sendable {
    private let requested = Mutex<Set<String>>([])
    private let digests = Mutex<[String: OriginResourceDigest]>([:])

    init() {}

    /// The harness requested a download of `video`: its resources may be on the disk.
    func requested(_ video: String) {
        _ = requested.withLock { $0.insert(video) }
    }

    /// The files under `storage` identified against what `origin` serves at the media
    /// paths of the requested videos the app had requested before `killedAt` (trace
    /// time; `epoch` turns the origin's monotonic clock into it). The responses in
    /// progress are read before the log, so none begun before the kill is missed (the
    /// ones the kill cut are still in progress, or just logged).
    func snapshot(storage: String, origin: OriginServer, killedAt: UInt64, epoch: UInt64) -> DiskIdentification {
        let records = origin.responsesInProgress + origin.requestLog
        let videos = requested.withLock { $0 }
        let fetching = Set(records.filter { $0.startedAtNanoseconds <= epoch &+ killedAt }.compactMap { record in
            ContentPath(record.path).flatMap { Self.isMedia($0) && videos.contains($0.videoID ?? "") ? $0 : nil }
        })
        let store = origin.store
        let resources = fetching.sorted { $0.path < $1.path }.compactMap { digest(of: $0, store: store) }
        let matcher = DiskContentMatcher(resources: resources, fetching: Set(fetching.map(\.path))) { path in
            ContentPath(path).flatMap { try? store.loadResource(at: $0) }?.bytes
        }
        return matcher.identify(DiskFile.walk(storage), in: storage)
    }

    /// The digest of what the origin serves at `path`, made once; nil when it serves nothing there.
    private func digest(of path: ContentPath, store: ContentStore) -> OriginResourceDigest? {
        if let known = digests.withLock({ $0[path.path] }) { return known }
        guard let resource = (try? store.loadResource(at: path)) ?? nil else { return nil }
        let made = OriginResourceDigest(
            path: path.path, size: Int64(resource.bytes.count), sha256: resource.sha256,
            head: Array(resource.bytes.prefix(OriginResourceDigest.headLength)))
        digests.withLock { $0[path.path] = made }
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
