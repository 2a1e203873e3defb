import FixtureOrigin
import Foundation
import Testing
@testable import ClientComparison

/// ffmpeg itself as a black-box client, on real media: its remuxed output is judged by
/// ffprobe's duration and a full decode.
@Suite(.serialized, .timeLimit(.minutes(5))) struct RealMediaComparisonTests {
    @Test func ffmpegCopiesTheWholeVideoOnACleanLinkAndItIsJudgedAsMedia() async throws {
        for tool in ["ffmpeg", "ffprobe"] {
            guard ToolLocator.find(tool) != nil else {
                throw MissingTool(description: "this test needs \(tool): apt-get install ffmpeg (.ci/install-deps does)")
            }
        }
        let ffmpeg = try #require(BuiltInClients.named("ffmpeg"))
        let cache = NSTemporaryDirectory() + "deadzone-test-media"
        var options = smallComparison(clients: [ffmpeg], modes: [.clean])
        options.media = .real(RealMediaConfiguration(cacheDirectory: cache))
        let report = try await ComparisonRunner.run(options).report
        #expect(report.content.media == "real")
        let run = try #require(report.run(client: "ffmpeg", mode: .clean))
        #expect(run.outcome == .ok, "\(run)")
        let output = try #require(run.output)
        #expect(output.method == "media")
        #expect(abs((output.probedSeconds ?? 0) - 12) <= OutputCheck.tolerance(of: 12), "\(output.detail)")
        #expect(output.decodeErrors == 0)
        #expect(run.command.contains("-c copy"))
    }

    @Test func theInspectorCatchesATruncatedMediaFile() async throws {
        guard ToolLocator.find("ffprobe") != nil, ToolLocator.find("ffmpeg") != nil else {
            throw MissingTool(description: "this test needs ffmpeg and ffprobe: apt-get install ffmpeg")
        }
        let cache = NSTemporaryDirectory() + "deadzone-test-media"
        let video = ComparisonContent.video(rate: 4_000_000, targetSeconds: 3, durationSeconds: 12)
        let store = try ContentStore(
            catalog: Catalog(configuration: CatalogConfiguration(seed: 7, segmentDuration: 2), videos: [video]),
            encoder: RealMediaEncoder(configuration: RealMediaConfiguration(cacheDirectory: cache)))
        let segments = try ComparisonContent.segments(of: video, in: store)
        let inspector = OutputInspector(
            content: segments.flatMap { $0 }, segmentSizes: segments.map(\.count), expectedSeconds: 12,
            expectedVideoFrames: 12 * 25, isRealMedia: true)
        let directory = NSTemporaryDirectory() + "deadzone-inspector-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The first half of the segments: a valid file, half the duration.
        let half = directory + "/half.ts"
        try Data(segments.prefix(3).flatMap { $0 }).write(to: URL(fileURLWithPath: half))
        let check = await inspector.check(half, method: .media)
        #expect(!check.valid)
        #expect(abs((check.probedSeconds ?? 0) - 6) < 1, "\(check.detail)")
        #expect(check.detail.contains("content missing"))
        // Segments 1, 2, 3 and 4 missing from the middle: the whole duration, no decode error, a third of the frames.
        let gap = directory + "/gap.ts"
        try Data((segments.prefix(1) + segments.suffix(1)).flatMap { $0 }).write(to: URL(fileURLWithPath: gap))
        let gapCheck = await inspector.check(gap, method: .media)
        #expect(!gapCheck.valid)
        #expect(gapCheck.videoFrames == 100, "\(gapCheck.detail)")
        #expect(gapCheck.detail.contains("100 of 300 video frames"), "\(gapCheck.detail)")
        // The same bytes judged `auto`: not byte-identical, so judged as media, and still invalid.
        let auto = await inspector.check(half, method: .auto)
        #expect(!auto.valid && auto.method == "media")
        // The whole copy, judged `auto`: byte-identical.
        let whole = directory + "/whole.ts"
        try Data(segments.flatMap { $0 }).write(to: URL(fileURLWithPath: whole))
        #expect(await inspector.check(whole, method: .auto).method == "bytes")
        let wholeMedia = await inspector.check(whole, method: .media)
        #expect(wholeMedia.valid, "\(wholeMedia.detail)")
        #expect(wholeMedia.videoFrames == 300)
        #expect(await inspector.check(directory + "/none.ts", method: .media) == .missing)
    }
}
