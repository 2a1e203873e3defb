import BenchCore
import FixtureOrigin
import Foundation
@testable import ResilienceHarness

/// An offline package written by hand into a scratch directory, the way an app might
/// write one, from what a small fixture origin serves; read back with the harness's
/// `PackageReader` and matched with its `OriginCatalogView`.
///
/// Layout: `<scratch>/pkg/` is the package (its `master.m3u8` is `master`),
/// `<scratch>/elsewhere/` lies outside it.
struct ScratchPackage {
    let scratch: String
    let video: String
    let origin: OriginCatalogView

    var root: String { scratch + "/pkg" }
    var outside: String { scratch + "/elsewhere" }
    var master: String { root + "/master.m3u8" }

    /// An empty package for `video` of a small origin (segments of a few kilobytes).
    init(video: String) throws {
        scratch = NSTemporaryDirectory() + "deadzone-package-\(UUID().uuidString)"
        self.video = video
        origin = OriginCatalogView(store: ContentStore(configuration: CatalogConfiguration(seed: 3, sizeScale: 0.01)))
        for directory in [root, outside] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// What the origin serves at `path`.
    func served(_ path: String) -> [UInt8] {
        origin.store.resource(at: path)?.bytes ?? []
    }

    /// The origin's segment paths of `stream` (`400k`, `audio_fr`, `subs/de`), in order.
    func segments(of stream: String) -> [String] {
        origin.renditions(ofVideo: video).first { $0.path == "/videos/\(video)/\(stream)/index.m3u8" }?
            .segments.map(\.path) ?? []
    }

    /// Writes `bytes` at `relative` (inside the package unless it starts with `/`).
    func write(_ relative: String, _ bytes: [UInt8]) throws {
        let path = relative.hasPrefix("/") ? relative : root + "/" + relative
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    func write(_ relative: String, text: String) throws {
        try write(relative, Array(text.utf8))
    }

    /// Writes the master playlist naming `variant` (a local playlist) and `renditions`
    /// (`(type, local playlist)`, e.g. `("AUDIO", "b.m3u8")`).
    func writeMaster(variant: String, renditions: [(type: String, uri: String)] = []) throws {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:4"]
        for (index, rendition) in renditions.enumerated() {
            lines.append("#EXT-X-MEDIA:TYPE=\(rendition.type),GROUP-ID=\"g\(index)\",NAME=\"r\(index)\",URI=\"\(rendition.uri)\"")
        }
        lines += ["#EXT-X-STREAM-INF:BANDWIDTH=400000", variant]
        try write("master.m3u8", text: lines.joined(separator: "\n") + "\n")
    }

    /// Writes the local playlist `name` listing `files` (URIs relative to it), with
    /// `keyLine` (an `#EXT-X-KEY` tag) before the first segment when given.
    func writePlaylist(_ name: String, files: [String], keyLine: String? = nil) throws {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:4", "#EXT-X-TARGETDURATION:6", "#EXT-X-PLAYLIST-TYPE:VOD"]
        if let keyLine { lines.append(keyLine) }
        for file in files { lines += ["#EXTINF:6.0,", file] }
        lines.append("#EXT-X-ENDLIST")
        try write(name, text: lines.joined(separator: "\n") + "\n")
    }

    /// Stores every segment of the origin's `stream` as served, under `directory/`
    /// beside the playlist `name`, and writes that playlist naming them; returns the
    /// URIs it lists (relative to the playlist).
    @discardableResult
    func store(_ stream: String, as name: String, in directory: String, keyLine: String? = nil) throws -> [String] {
        let beside = (name as NSString).deletingLastPathComponent
        let files = segments(of: stream).indices.map { "\(directory)/part\($0).bin" }
        for (file, path) in zip(files, segments(of: stream)) {
            try write(beside.isEmpty ? file : beside + "/" + file, served(path))
        }
        try writePlaylist(name, files: files, keyLine: keyLine)
        return files
    }

    /// The harness's findings for the package as it is now (read and hashed off the
    /// cooperative pool, as the harness does).
    func read() async -> PackageFindings {
        let (origin, video, master) = (origin, video, master)
        return await OffPool.run {
            PackageMatcher(renditions: origin.renditions(ofVideo: video), originHash: origin.sha256(of:range:))
                .match(PackageReader.read(master: master))
        }
    }
}
