import BenchCore
import Crypto
import FixtureOrigin
import Foundation
@testable import ResilienceHarness
import Testing

/// `bench chaos --catalog DIR`: the generator requests recorded streams beside the
/// fixture videos, and a campaign serves and judges them.
@Suite(.timeLimit(.minutes(5))) struct ChaosRecordedCatalogTests {
    static let recorded = [ChaosRecordedVideo(id: "pilot"), ChaosRecordedVideo(id: "pilot-fp", needsLicense: true)]

    /// The videos `file` requests, in order.
    static func requested(_ file: ScenarioFile) -> [String] {
        file.steps.compactMap { if case .request(let request) = $0 { request.video } else { nil } }
    }

    @Test func everyScenarioRequestsARecordedStreamFirstAndNeedsALicenseForAnSKDOne() {
        let generator = ChaosGenerator(profileName: "flaky-wifi", recorded: Self.recorded)
        let fixtureOnly = ChaosGenerator(profileName: "flaky-wifi")
        var licensed = 0
        for seed in UInt64(1)...40 {
            let file = generator.scenario(seed: seed)
            let videos = Self.requested(file)
            #expect(["pilot", "pilot-fp"].contains(videos.first ?? ""), "seed \(seed): \(videos)")
            #expect(videos.count == Set(videos).count, "seed \(seed): a video requested twice: \(videos)")
            if videos.contains("pilot-fp") {
                licensed += 1
                #expect(file.needs.contains(.licenses), "seed \(seed): \(file.needs)")
            }
            #expect(generator.scenario(seed: seed).yaml == file.yaml, "seed \(seed) is not deterministic")
            // The fixture-only generator never names a recorded stream, and stays what it was.
            #expect(Self.requested(fixtureOnly.scenario(seed: seed)).allSatisfy { ChaosCatalog.videos.contains($0) })
            #expect(fixtureOnly.scenario(seed: seed).yaml == ChaosGenerator(profileName: "flaky-wifi", recorded: []).scenario(seed: seed).yaml)
        }
        #expect(licensed > 0, "no scenario requested the recorded stream with an skd:// key")
        #expect(generator.protectedVideos == ChaosCatalog.protected.union(["pilot-fp"]))
    }

    /// A catalog `bench record` could have written, by hand: `pilot`, a clear stream, and
    /// `pilot-fp`, segments of its own under an `skd://` key the license server answers
    /// (not pilot's: two streams that share a segment's bytes are never requested in one
    /// chaos scenario, `ChaosRecordedVideo.pool`).
    static func writeCatalog(to directory: String) throws {
        var resources: [RecordedResource] = []
        var videos: [RecordedVideo] = []
        func add(_ url: String, _ kind: RecordedResource.Kind, _ bytes: Data, type: String) throws {
            let file = "files/\(resources.count)"
            try bytes.write(to: URL(fileURLWithPath: directory + "/" + file))
            resources.append(RecordedResource(
                url: url, kind: kind, file: file, contentType: type, size: Int64(bytes.count),
                sha256: SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()))
        }
        try FileManager.default.createDirectory(atPath: directory + "/files", withIntermediateDirectories: true)
        for (id, key) in [("pilot", nil), ("pilot-fp", "skd://pilot-asset/key-1")] as [(String, String?)] {
            var generator = SeededGenerator(seed: key == nil ? 38 : 39)
            let segments = (0..<6).map { _ in Data((0..<60_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }) }
            let base = "https://cdn.example/\(id)"
            let playlist = "application/vnd.apple.mpegurl"
            try add(base + "/master.m3u8", .master, Data(
                "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=400000,RESOLUTION=320x180,CODECS=\"avc1.42c00c\"\nv0/index.m3u8\n".utf8), type: playlist)
            var media = "#EXTM3U\n#EXT-X-VERSION:5\n#EXT-X-TARGETDURATION:1\n#EXT-X-PLAYLIST-TYPE:VOD\n"
            if let key { media += "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"\(key)\",KEYFORMAT=\"com.apple.streamingkeydelivery\"\n" }
            media += segments.indices.map { "#EXTINF:1.0,\nseg\($0).ts\n" }.joined() + "#EXT-X-ENDLIST\n"
            try add(base + "/v0/index.m3u8", .media, Data(media.utf8), type: playlist)
            let first = resources.count - 2
            for (index, bytes) in segments.enumerated() { try add(base + "/v0/seg\(index).ts", .segment, bytes, type: "video/mp2t") }
            videos.append(RecordedVideo(
                id: id, name: id, master: base + "/master.m3u8", duration: 6, protection: key == nil ? "clear" : "sample-aes",
                licenseKeys: key.map { [$0] } ?? [], resources: resources[first...].map(\.url)))
        }
        try RecordedCatalog(videos: videos, resources: resources).write(to: directory)
    }

    /// A short campaign on a recorded catalog: seed 1's file requests a recorded stream
    /// first (then fixture videos, through outages and kills), the origin serves it, the
    /// judge files its requests under it, Deadzone's engine passes, and the commands
    /// printed carry `--catalog`.
    @Test func aCampaignOnARecordedCatalogRequestsAndJudgesItsStreams() async throws {
        let scratch = try BenchRunCommandTests.Scratch()
        defer { scratch.remove() }
        let catalog = scratch.root + "/catalog"
        try Self.writeCatalog(to: catalog)
        let recorded = ChaosRecordedVideo.all(in: try RecordedContent.load([catalog]))
        #expect(recorded == Self.recorded)
        let generator = ChaosGenerator(profileName: "cli-test", recorded: recorded)
        let seed: UInt64 = 1
        let run = try await runBench(
            ["chaos", "--seeds", String(seed), "--profile", scratch.profile, "--catalog", catalog, "--out", scratch.out],
            in: scratch.root)
        #expect(run.status == 0, "\(run.output)")
        let file = generator.scenario(seed: seed)
        #expect(scratch.text("seed-\(seed).yaml") == file.yaml)
        let first = try #require(Self.requested(file).first)
        let line = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("seed \(seed)  PASS") }, "\(run.output)")
        #expect(line.contains("rerun: ") && line.contains(" --catalog \(catalog)  replay: "), "\(line)")
        #expect(line.hasSuffix("--scenario-file \(scratch.out)/seed-\(seed).yaml --catalog \(catalog)"), "\(line)")
        // The recorded stream was served and judged: its segments came from the origin, byte-identical in its package.
        let report = try BenchRunCommandTests.decodeReport(scratch.text("seed-\(seed)/report.json"))
        let integrity = try #require(report.scenarios.first?.verdicts.first { $0.property == "integrity" })
        #expect(integrity.outcome == .passed, "\(integrity.summary)")
        let trace = scratch.text("seed-\(seed)/trace.jsonl")
        #expect(trace.contains("\"path\":\"/\(first)/v0/seg0.ts\""), "no request for the recorded stream \(first)")
    }

    @Test func anUnreadableCatalogIsBadInput() async throws {
        let scratch = try BenchRunCommandTests.Scratch()
        defer { scratch.remove() }
        let run = try await runBench(
            ["chaos", "--seeds", "1", "--profile", scratch.profile, "--catalog", scratch.root, "--out", scratch.out],
            in: scratch.root)
        #expect(run.status == 2 && run.stderr.contains("--catalog: \(scratch.root) has no catalog.json"), "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: scratch.out))
    }
}
