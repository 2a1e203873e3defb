import BenchCore
import FixtureOrigin
import Foundation
import HLSPlaylist
import OfflineDownloads
import TestSupport
import Testing

/// A clear real-media video downloaded by the engine plays from its package with no
/// network: ffprobe reads the local master playlist and ffmpeg decodes it cleanly.
@Suite(.timeLimit(.minutes(5))) struct RealMediaPackageTests {
    @Test func ffmpegPlaysTheOfflinePackage() async throws {
        guard let ffmpeg = Self.locate("ffmpeg"), let ffprobe = Self.locate("ffprobe") else {
            Issue.record("ffmpeg and ffprobe are needed: apt-get install ffmpeg (or DEADZONE_NEEDS_FFMPEG=1 bash .ci/install-deps)")
            return
        }
        let cache = try ScratchDirectory()
        defer { cache.remove() }
        let ladder = [
            VideoVariant(name: "200k", bandwidth: 200_000, averageBandwidth: 180_000,
                         resolution: Resolution(width: 160, height: 90), codecs: "avc1.42c01e,mp4a.40.2"),
            VideoVariant(name: "audio", bandwidth: 64_000, averageBandwidth: 60_000, resolution: nil, codecs: "mp4a.40.2"),
        ]
        try await withEngine({ configuration in
            configuration.catalog = CatalogConfiguration(segmentDuration: 4)
            configuration.videos = [Video(id: "tiny", name: "Tiny", duration: 9, variants: ladder)]
            configuration.media = .real(RealMediaConfiguration(cacheDirectory: cache.path))
        }) { fixture in
            let manager = try await fixture.makeManager()
            let token = try await manager.requestDownload(video: try await fixture.video("tiny"))
            #expect(try await manager.wait(for: token, seconds: 120) { $0 == .downloaded || $0 == .failed } == .downloaded)
            let master = try #require(await manager.offlineVideo(token)).masterPlaylist.path
            await manager.shutdown()
            // From here on the origin must see nothing: the package is read from disk only.
            let played = fixture.server.nowNanoseconds
            let probe = try await Self.run(ffprobe, ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", master])
            let duration = Double(probe.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            #expect(abs(duration - 9) < 0.3, "ffprobe: \(probe.output) \(probe.errors)")
            let decode = try await Self.run(ffmpeg, ["-nostdin", "-v", "error", "-i", master, "-f", "null", "-"])
            #expect(decode.status == 0 && decode.errors.isEmpty, "\(decode.errors)")
            let asked = fixture.server.requests(startedAfter: played)
            #expect(asked.isEmpty, "playing the package went to the network: \(asked.map(\.path))")
        }
    }

    @Test func ffmpegPlaysTheStoredPrefixOfADownloadInProgress() async throws {
        guard let ffmpeg = Self.locate("ffmpeg"), let ffprobe = Self.locate("ffprobe") else {
            Issue.record("ffmpeg and ffprobe are needed: apt-get install ffmpeg (or DEADZONE_NEEDS_FFMPEG=1 bash .ci/install-deps)")
            return
        }
        let cache = try ScratchDirectory()
        defer { cache.remove() }
        let ladder = [
            VideoVariant(name: "200k", bandwidth: 200_000, averageBandwidth: 180_000,
                         resolution: Resolution(width: 160, height: 90), codecs: "avc1.42c01e,mp4a.40.2"),
        ]
        // Three 4 s segments (4 + 4 + 1 s); the second is held by the origin, the third is stored:
        // the prefix that plays is the first segment alone.
        try await withEngine({ configuration in
            configuration.catalog = CatalogConfiguration(segmentDuration: 4)
            configuration.videos = [Video(id: "tiny", name: "Tiny", duration: 9, variants: ladder)]
            configuration.media = .real(RealMediaConfiguration(cacheDirectory: cache.path))
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/tiny/200k/seg1.ts", fault: .addedTimeToFirstByte(.seconds(60)))
            ])
        }) { fixture in
            let manager = try await fixture.makeManager()
            let token = try await manager.requestDownload(video: try await fixture.video("tiny"))
            let package = fixture.package(token)
            await eventually("segment 2 stored while segment 1 is held") {
                FileManager.default.fileExists(atPath: package + "/video/seg00002.ts")
            }
            let offline = try #require(await manager.offlineVideo(token))
            #expect(!offline.playableOffline)
            let probe = try await Self.run(ffprobe, ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", offline.masterPlaylist.path])
            let duration = Double(probe.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            #expect(abs(duration - 4) < 0.3, "ffprobe: \(probe.output) \(probe.errors)")
            let decode = try await Self.run(ffmpeg, ["-nostdin", "-v", "error", "-i", offline.masterPlaylist.path, "-f", "null", "-"])
            #expect(decode.status == 0 && decode.errors.isEmpty, "\(decode.errors)")
            try await manager.cancel(token)
            await manager.shutdown()
        }
    }

    static func locate(_ name: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
            .map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs a tool to its end (waiting on a thread of its own, off the cooperative pool).
    static func run(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        let run = try await ChildProcess.run(executable, arguments, timeout: .seconds(300))
        return (run.status, run.stdout, run.stderr)
    }
}
