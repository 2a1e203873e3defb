import Crypto
import FixtureOrigin
import Foundation
import HLSPlaylist
import Synchronization

/// The harness's own view of its origin, in process: a video's renditions as the
/// origin's playlists name them (read like a client would, through `ContentStore`),
/// and the SHA-256 of whatever the origin serves at a path.
///
/// One per scenario, over that scenario's `ContentStore`; shared by the package reads
/// (agent monitor thread, scenario task) and the runner. Segments are generated on
/// demand, so hashes and renditions are kept once made (behind a lock, never held
/// while generating).
final class OriginCatalogView: Sendable {
    let store: ContentStore
    private let cache = Mutex(Cache())

    private struct Cache {
        var renditions: [String: [OriginRendition]] = [:]
        var hashes: [String: String?] = [:]
    }

    init(store: ContentStore) {
        self.store = store
    }

    /// The media playlists the origin's master playlist of `video` names (variants,
    /// renditions with a URI, I-frame playlists), each with its ordered segments;
    /// empty when the origin has no such video.
    func renditions(ofVideo video: String) -> [OriginRendition] {
        if let known = cache.withLock({ $0.renditions[video] }) { return known }
        let made = makeRenditions(ofVideo: video)
        cache.withLock { $0.renditions[video] = made }
        return made
    }

    /// The ids of the catalog's videos that may not be downloaded (`offline_enabled: false`).
    var offlineDisabledVideos: Set<String> {
        Set(store.catalog.videos.filter { !$0.offlineEnabled }.map(\.id))
    }

    /// Rendition playlist path → its segments in order (each a path, or a byte range of
    /// one), and the init sections they name, for every video of `videos`.
    func layout(ofVideos videos: some Sequence<String>) -> OriginLayout {
        var layout = OriginLayout()
        for video in Set(videos) {
            for rendition in renditions(ofVideo: video) {
                layout.renditions[rendition.path] = rendition.segments.map(\.resource)
                for segment in rendition.segments {
                    if let map = segment.map?.resource, !layout.initSections.contains(map) { layout.initSections.append(map) }
                }
            }
        }
        return layout
    }

    /// SHA-256 (lowercase hex) of what the origin serves at `path` (its query ignored),
    /// or of `range` of it; nil when it serves nothing there (or the range lies beyond).
    func sha256(of path: String, range: ByteRange? = nil) -> String? {
        let key = path + (range.map { "#\($0)" } ?? "")
        if let known = cache.withLock({ $0.hashes[key] }) { return known }
        var hash: String?
        if let resource = try? store.loadResource(atPath: path) {
            if let range {
                if let end = range.end, end <= resource.bytes.count {
                    hash = Self.hex(SHA256.hash(data: resource.bytes[range.offset..<end]))
                }
            } else {
                hash = resource.sha256
            }
        }
        cache.withLock { $0.hashes[key] = hash }
        return hash
    }

    /// What the origin serves at every path the app claimed a hash for in an inspection
    /// (`AppInspection.segmentHashes`), keyed as claimed, so that each claim can be
    /// checked (`integrity`). A `#bytes=a-b` suffix is hashed as that range of the path.
    func manifest(claimedIn trace: ScenarioTrace) -> [String: String] {
        var manifest: [String: String] = [:]
        for key in Set(trace.inspections.flatMap { ($0.inspection.segmentHashes ?? [:]).keys }) {
            let parts = key.split(separator: "#", maxSplits: 1)
            let path = OriginPath.normalized(String(parts.first ?? ""))
            var range: ByteRange?
            if parts.count == 2 {
                guard let parsed = Self.byteRange(String(parts[1])) else { continue }
                range = parsed
            }
            if let hash = sha256(of: path, range: range) { manifest[key] = hash }
        }
        return manifest
    }

    /// `bytes=a-b` as a byte range, nil for anything else.
    static func byteRange(_ text: String) -> ByteRange? {
        guard text.hasPrefix("bytes=") else { return nil }
        let bounds = text.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]), first >= 0, last >= first
        else { return nil }
        return ByteRange(length: last - first + 1, offset: first)
    }

    private func makeRenditions(ofVideo video: String) -> [OriginRendition] {
        let masterPath = store.recorded.stream(video)?.masterPath ?? ContentPath.masterPlaylist(videoID: video).path
        guard let text = playlistText(masterPath), let master = try? MasterPlaylist.parse(text) else { return [] }
        var seen: Set<String> = []
        var result: [OriginRendition] = []
        for (uri, _) in PackageReader.mediaPlaylists(of: master) {
            guard case .path(let path) = Self.reference(uri, from: masterPath), seen.insert(path).inserted,
                let text = playlistText(path), let media = try? MediaPlaylist.parse(text)
            else { continue }
            let segments = media.segments.enumerated().compactMap { index, segment -> OriginSegment? in
                guard case .path(let segmentPath) = Self.reference(segment.uri, from: path) else { return nil }
                return OriginSegment(
                    path: segmentPath, byteRange: segment.byteRange,
                    key: OriginKey.playable(segment.keys).map {
                        OriginKey($0, sequence: media.mediaSequenceNumber(ofSegment: index), from: path)
                    },
                    map: segment.map.flatMap { map in
                        guard case .path(let mapPath) = Self.reference(map.uri, from: path) else { return nil }
                        return OriginResource(path: mapPath, byteRange: map.byteRange)
                    })
            }
            result.append(OriginRendition(path: path, segments: segments))
        }
        return result
    }

    private func playlistText(_ path: String) -> String? {
        guard let resource = try? store.loadResource(atPath: path) else { return nil }
        return String(decoding: resource.bytes, as: UTF8.self)
    }

    /// What a URI of the origin playlist at `playlistPath` names.
    enum Reference: Hashable {
        /// A path on the origin.
        case path(String)
        /// A URI nothing on the origin serves (`skd:`, `data:`, another host).
        case other(String)
    }

    static func reference(_ uri: String, from playlistPath: String) -> Reference {
        guard let base = URL(string: "http://origin" + playlistPath), let url = resolve(uri, against: base) else {
            return .other(uri)
        }
        guard url.scheme == "http" || url.scheme == "https" else { return .other(uri) }
        return .path(url.path)
    }

    static func hex(_ digest: some Sequence<UInt8>) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}

/// One media playlist of the origin: its path and its segments in order.
struct OriginRendition: Sendable, Hashable {
    var path: String
    var segments: [OriginSegment]
}

/// One segment of an origin rendition.
struct OriginSegment: Sendable, Hashable {
    var path: String
    var byteRange: ByteRange?
    var key: OriginKey?
    var map: OriginResource?
}

/// A resource of the origin, or a range of it (an init section).
struct OriginResource: Sendable, Hashable {
    var path: String
    var byteRange: ByteRange?

    /// As the disk reads name it.
    var resource: MediaResourceKey { MediaResourceKey(path: path, byteRange: byteRange) }
}

extension OriginSegment {
    /// As the disk reads name it: its path, or its byte range of it.
    var resource: MediaResourceKey { MediaResourceKey(path: path, byteRange: byteRange) }
}

extension MediaResourceKey {
    /// `path`, or the bytes `byteRange` names of it (the whole file for an empty or
    /// overflowing range, which names no bytes a client could ask for).
    init(path: String, byteRange: ByteRange?) {
        guard let byteRange, byteRange.length > 0, let end = byteRange.end else {
            self.init(path: path)
            return
        }
        self.init(path: path, range: Int64(byteRange.offset)...Int64(end - 1))
    }
}

/// The resources of the origin's renditions of some videos (`OriginCatalogView.layout(ofVideos:)`):
/// what the judge's `OriginRenditions` are made of.
struct OriginLayout: Sendable, Hashable {
    /// Rendition playlist path → its segments in order.
    var renditions: [String: [MediaResourceKey]] = [:]
    /// The init sections (EXT-X-MAP) the renditions name, each once.
    var initSections: [MediaResourceKey] = []
}

extension OriginRenditions {
    /// The renditions of `layout`.
    init(_ layout: OriginLayout) {
        self.init(resources: layout.renditions, initSections: layout.initSections)
    }
}

/// The key in effect for an origin segment.
struct OriginKey: Sendable, Hashable {
    var method: EncryptionKey.Method
    /// The origin path of the key file, or the URI of a key no one fetches.
    var reference: OriginCatalogView.Reference
    /// The IV: the playlist's, or the segment's media sequence number (RFC 8216 §5.2).
    var iv: [UInt8]

    init(_ key: EncryptionKey, sequence: Int, from playlistPath: String) {
        method = key.method
        reference = PackageReader.needsNoFile(key.uri) ? .other(key.uri) : OriginCatalogView.reference(key.uri, from: playlistPath)
        iv = key.iv ?? Self.sequenceIV(sequence)
    }

    /// Of the keys a segment lists (one per KEYFORMAT; a multi-DRM stream lists FairPlay,
    /// Widevine and PlayReady keys), the one a FairPlay/AES-128 player decrypts with:
    /// the `skd:` key, else the `identity` one; nil when there is neither. The judge's
    /// own reading of RFC 8216 §4.3.2.4, applied alike to the origin's and the package's playlists.
    static func playable(_ keys: [EncryptionKey]) -> EncryptionKey? {
        keys.first { $0.uri.lowercased().hasPrefix("skd:") } ?? keys.first { $0.format == "identity" }
    }

    /// A media sequence number as a 128-bit big-endian IV.
    static func sequenceIV(_ sequence: Int) -> [UInt8] {
        let value = UInt64(truncatingIfNeeded: sequence)
        return [UInt8](repeating: 0, count: 8) + (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }

    /// How evidence names it.
    var description: String {
        switch reference {
        case .path(let path): path
        case .other(let uri): uri
        }
    }
}
