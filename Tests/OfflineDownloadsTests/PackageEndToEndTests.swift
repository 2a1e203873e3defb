import BenchCore
import FixtureOrigin
import Foundation
import HLSPlaylist
import OfflineDownloads
import Testing

@Suite("OfflinePackage: end to end on disk", .timeLimit(.minutes(2)))
struct PackageEndToEndTests {
    typealias F = PackageFixtures

    @Test("store every item of a plan as the engine would, write the package, every URI is a file")
    func writeWithoutNetwork() throws {
        let catalog = Catalog(configuration: CatalogConfiguration())
        let plan = try PackagePlanTests.catalogPlan(catalog, try #require(catalog.video(withID: "http-key")))
        let directory = try F.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = PackageFiles(directory: directory.path)
        var records = plan.segmentRecords(token: "t")
        for i in records.indices {
            let part = try files.prepare(records[i])
            try Data("bytes of \(records[i].localPath)".utf8).write(to: URL(fileURLWithPath: part))
            records[i].bytes = try files.commit(records[i])
            records[i].state = .complete
        }
        let package = OfflinePackage(plan: plan, segments: records)
        #expect(package.isComplete(segments: records))
        try package.write(to: directory)
        try package.write(to: directory)  // again: renames over the old files
        for file in package.render() {
            let onDisk = try String(contentsOf: directory.appendingPathComponent(file.relativePath), encoding: .utf8)
            #expect(onDisk == file.text)
            for uri in try PackageRenderTests.uris(in: try Playlist.parse(onDisk)) {
                let target = directory.appendingPathComponent(uri).standardized.path
                #expect(target.hasPrefix(directory.standardized.path + "/"), "\(uri) leaves the package")
                #expect(FileManager.default.fileExists(atPath: target), "\(file.relativePath) names \(uri), which is missing")
            }
        }
        let leftovers = try FileManager.default.subpathsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tmp") || $0.hasSuffix(".part") }
        #expect(leftovers.isEmpty)
    }

    @Test("ffprobe plays the local master of a real, AES-128-encrypted package with no network")
    func ffprobeRealPackage() async throws {
        guard let ffmpeg = Tool.find("ffmpeg"), let ffprobe = Tool.find("ffprobe") else {
            Issue.record("ffmpeg/ffprobe are not on PATH; this test needs them: apt-get install ffmpeg")
            return
        }
        let source = try F.temporaryDirectory()
        let package = try F.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: source)
            try? FileManager.default.removeItem(at: package)
        }
        // The "origin": two real 2 s TS segments, encrypted with an HTTP AES-128 key.
        let key = Data((0..<16).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) })
        try key.write(to: source.appendingPathComponent("k.bin"))
        try "https://keys.test/k1\n\(source.path)/k.bin\n".write(
            to: source.appendingPathComponent("keyinfo.txt"), atomically: true, encoding: .utf8)
        let encode = try await Tool.run(ffmpeg, [
            "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=25:duration=4", "-c:v", "libx264",
            "-g", "50", "-keyint_min", "50", "-sc_threshold", "0", "-f", "hls", "-hls_time", "2",
            "-hls_playlist_type", "vod", "-hls_key_info_file", source.path + "/keyinfo.txt",
            "-hls_segment_filename", source.path + "/seg%d.ts", source.path + "/index.m3u8",
        ])
        try #require(encode.status == 0, "ffmpeg failed: \(encode.error)")
        for (index, text) in ["Hello", "World"].enumerated() {
            try "WEBVTT\n\n00:00:0\(2 * index).000 --> 00:00:0\(2 * index + 1).500\n\(text)\n".write(
                to: source.appendingPathComponent("seg\(index).vtt"), atomically: true, encoding: .utf8)
        }
        let masterURL = URL(string: "https://origin.test/real/master.m3u8")!
        let master = try MasterPlaylist.parse("""
            #EXTM3U
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="en",NAME="English",DEFAULT=YES,AUTOSELECT=YES,URI="subs/en/index.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=160x90,CODECS="avc1.64000c",SUBTITLES="subs"
            video/index.m3u8

            """)
        let selection = MediaSelection(variant: master.variants[0], subtitles: master.renditions)
        let videoText = try String(contentsOf: source.appendingPathComponent("index.m3u8"), encoding: .utf8)
        let plan = try F.plan(master: master, selection: selection, masterURL: masterURL) { stream in
            try MediaPlaylist.parse(stream.kind == .video ? videoText : F.vod([2, 2], ext: "vtt"))
        }
        #expect(plan.needsKeyFile && plan.items.count == 5)
        // The "download": each item's bytes from the origin's file of the same name.
        for item in plan.items {
            let name = item.kind == .keyFile ? "k.bin" : item.remoteURL.lastPathComponent
            let target = package.appendingPathComponent(item.localPath)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: source.appendingPathComponent(name), to: target)
        }
        try OfflinePackage(plan: plan).write(to: package)

        let probe = try await Self.probe(ffprobe, package.appendingPathComponent("master.m3u8"))
        #expect(probe.status == 0, "ffprobe refused the local master: \(probe.error)")
        #expect(probe.output.contains(#""width": 160"#) && probe.output.contains(#""height": 90"#), "\(probe.output)")
        #expect(probe.output.contains(#""nb_read_frames": "100""#), "both segments decrypt and decode: \(probe.output)")
        let subtitles = try await Self.probe(ffprobe, package.appendingPathComponent("subs_en.m3u8"))
        #expect(subtitles.status == 0 && subtitles.output.contains(#""codec_name": "webvtt""#), "\(subtitles.error)")

        // The check bites: with a wrong key, the same package does not play.
        try Data(repeating: 0x58, count: 16).write(to: package.appendingPathComponent("key.bin"))
        let broken = try await Self.probe(ffprobe, package.appendingPathComponent("master.m3u8"))
        #expect(broken.status != 0 || !broken.output.contains(#""nb_read_frames": "100""#))
    }

    /// ffprobe's view of `playlist`: stream kinds, sizes and decoded frame counts, as JSON.
    static func probe(_ ffprobe: URL, _ playlist: URL) async throws -> Tool.Result {
        // key.bin is not a "multimedia" extension, which ffmpeg's HLS demuxer refuses unless told.
        try await Tool.run(ffprobe, [
            "-v", "error", "-allowed_extensions", "ALL", "-count_frames",
            "-show_entries", "stream=codec_type,codec_name,width,height,nb_read_frames", "-of", "json", playlist.path,
        ])
    }
}

/// Finds and runs command-line tools for the end-to-end tests.
enum Tool {
    /// What a run printed and how it ended.
    struct Result {
        var status: Int32
        var output: String
        var error: String
    }

    /// The executable `name` on PATH, or nil.
    static func find(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").lazy
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs `executable` with `arguments` to its end. Output goes to files, so a
    /// chatty tool cannot block on a full pipe; the wait happens on a thread of its own,
    /// so no thread of Swift's cooperative pool is blocked meanwhile.
    static func run(_ executable: URL, _ arguments: [String]) async throws -> Result {
        let run = try await ChildProcess.run(executable.path, arguments, timeout: .seconds(300))
        return Result(status: run.status, output: run.stdout, error: run.stderr)
    }

}
