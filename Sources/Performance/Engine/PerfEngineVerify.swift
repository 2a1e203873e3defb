import FixtureOrigin
import Foundation
import OfflineDownloads

/// What a finished `bench download` left in its storage, checked byte for byte against
/// the origin.
struct PerfEngineContent: Sendable {
    /// Media files found (segments of every stream of every download).
    var files = 0
    /// Their total size: the content bytes goodput and overhead are measured against.
    var bytes: Int64 = 0
    /// One line per problem (missing download, incomplete segment, wrong size or hash).
    var problems: [String] = []

    var isExact: Bool { problems.isEmpty && files > 0 }
}

/// Reads the engine's index after the child exited and hashes every stored file.
///
/// Each file's SHA-256 is compared with the `sha256` the origin's `HashManifest` holds
/// for its path, computed the same way (`ContentStore.resource(at:)`, the served bytes)
/// but only for the paths downloaded: the manifest of a whole video generates every
/// variant (gigabytes for `large` at size scale 1).
enum PerfEngineVerify {
    static func check(storage: String, videoIDs: [String], store: ContentStore) async -> PerfEngineContent {
        var content = PerfEngineContent()
        let index: DownloadIndex
        do { index = try DownloadIndex.open(path: (storage as NSString).appendingPathComponent("index.sqlite")) } catch {
            content.problems.append("cannot open the engine's index: \(error)")
            return content
        }
        defer { try? index.close() }
        do {
            let downloads = try await index.downloads()
            for id in videoIDs where !downloads.contains(where: { $0.videoID == id }) {
                content.problems.append("no download of \(id) in the index")
            }
            for download in downloads {
                let segments = try await index.segments(for: download.token)
                let directory = (storage as NSString).appendingPathComponent(download.packageDirectory)
                check(segments, of: download.videoID, in: directory, store: store, into: &content)
            }
        } catch {
            content.problems.append("cannot read the engine's index: \(error)")
        }
        return content
    }

    private static func check(_ segments: [SegmentRecord], of videoID: String, in directory: String, store: ContentStore,
                              into content: inout PerfEngineContent) {
        guard let video = store.catalog.video(withID: videoID) else {
            content.problems.append("\(videoID) is not in the origin's catalog")
            return
        }
        let count = store.catalog.segmentCount(of: video)
        for (stream, rows) in Dictionary(grouping: segments, by: \.stream) where rows.count != count {
            content.problems.append("\(videoID) \(stream): \(rows.count) segments in the plan, the origin has \(count)")
        }
        if segments.isEmpty { content.problems.append("\(videoID): no segments in the index") }
        for segment in segments {
            let path = (directory as NSString).appendingPathComponent(segment.localPath)
            guard segment.state == .complete else {
                content.problems.append("\(segment.key) is \(segment.state), not complete")
                continue
            }
            guard let url = URL(string: segment.uri), let expected = store.resource(at: url.path) else {
                content.problems.append("\(segment.key): the origin serves nothing at \(segment.uri)")
                continue
            }
            guard let (size, hash) = sha256(ofFile: path) else {
                content.problems.append("\(segment.key): cannot read \(path)")
                continue
            }
            content.files += 1
            content.bytes += size
            if size != Int64(expected.bytes.count) || hash != expected.sha256 {
                content.problems.append("\(url.path): stored \(size) bytes sha256 \(hash.prefix(12))…, "
                                        + "origin \(expected.bytes.count) bytes sha256 \(expected.sha256.prefix(12))…")
            }
        }
    }

    /// Size and SHA-256 (lowercase hex) of a file. Hashed by `ContentResource`, the type
    /// the origin hashes its bodies with (this target does not import swift-crypto);
    /// segment files are a few MB, so reading one whole is fine.
    static func sha256(ofFile path: String) -> (Int64, String)? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return (Int64(data.count), ContentResource(contentType: "", bytes: Array(data), lastModified: Date()).sha256)
    }
}
