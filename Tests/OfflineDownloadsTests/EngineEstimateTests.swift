import BenchCore
import FixtureOrigin
import Foundation
import HLSPlaylist
import OfflineDownloads
import Testing

/// The size estimate: lengths where they are known (EXT-X-BYTERANGE, files already
/// stored), BANDWIDTH × duration otherwise.
@Suite(.timeLimit(.minutes(5))) struct EngineEstimateTests {
    /// One variant at 800 kbit/s: two byte ranges of one file, then a 2 s segment of its own.
    static let rangedMedia = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:6
        #EXTINF:6,
        #EXT-X-BYTERANGE:1000@0
        all.ts
        #EXTINF:6,
        #EXT-X-BYTERANGE:1500@1000
        all.ts
        #EXTINF:2,
        seg2.ts
        #EXT-X-ENDLIST

        """

    @Test func byteRangeLengthsAndKnownLengthsAreUsedBandwidthElsewhere() throws {
        let plan = try PackageFixtures.singleVariantPlan(Self.rangedMedia)
        // The ranges count their lengths; the last segment 800 000 bit/s × 2 s / 8.
        #expect(plan.estimatedBytes(knownLengths: [:]) == 1000 + 1500 + 200_000)
        let seg2 = URL(string: "seg2.ts", relativeTo: PackageFixtures.singleVariantURL)!.absoluteURL
        #expect(plan.estimatedBytes(knownLengths: [seg2: 777]) == 1000 + 1500 + 777)
        // A length known for a ranged file does not override its range.
        let all = URL(string: "all.ts", relativeTo: PackageFixtures.singleVariantURL)!.absoluteURL
        #expect(plan.estimatedBytes(knownLengths: [all: 5]) == 1000 + 1500 + 200_000)
        // With no range and nothing known it is BANDWIDTH × duration, like `estimatedBytes`.
        let plain = try PackageFixtures.singleVariantPlan(PackageFixtures.vod([6, 6, 2]))
        #expect(plain.estimatedBytes(knownLengths: [:]) == plain.estimatedBytes)
        #expect(plain.estimatedBytes == 800_000 * 14 / 8)
    }

    @Test func anEngineEstimateUsesTheSizesAlreadyStored() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            let video = try await fixture.video("clear")
            // Nothing stored: BANDWIDTH × duration of the lowest variant (400 kbit/s, 125 s).
            let before = try await manager.estimateDownloadSize(video: video, parameters: DownloadParameters())
            #expect(before == 400_000 * 125 / 8)
            let token = try await manager.requestDownload(video: video)
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            // Stored: the exact size of what was stored (the fixture's segments are scaled down).
            let stored = try #require(await manager.status(token)).bytesDownloaded
            let after = try await manager.estimateDownloadSize(video: video, parameters: DownloadParameters())
            #expect(after == stored && after != before, "estimate \(after), stored \(stored)")
            // Another variant is not stored: back to BANDWIDTH × duration.
            let other = try await manager.estimateDownloadSize(video: video, parameters: DownloadParameters(requestedBitrate: 1_000_000))
            #expect(other == 1_200_000 * 125 / 8)
            await manager.shutdown()
        }
    }
}
