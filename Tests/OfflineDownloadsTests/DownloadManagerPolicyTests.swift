import BenchCore
import FixtureOrigin
import Foundation
import OfflineDownloads
import Synchronization
import TestSupport
import Testing

/// Licenses, retries, bad playlists, storage and settings, end to end.
@Suite(.timeLimit(.minutes(5))) struct DownloadManagerPolicyTests {
    @Test func aPreloadedLicenseIsReusedByTheDownload() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            let video = try await fixture.video("protected")
            let preloaded = try await manager.preloadLicense(video: video, parameters: DownloadParameters())
            #expect(await manager.status(preloaded)?.state == .licensePreloaded)
            let token = try await manager.requestDownload(video: video)
            #expect(token == preloaded)
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            #expect(fixture.server.requestLog.filter { $0.path == "/license" }.count == 1)
            await manager.shutdown()
        }
    }

    @Test func anExpiredRentalIsNotPlayableAndRenewalNeedsTheServer() async throws {
        try await withEngine { fixture in
            let clock = Mutex(Date())
            let manager = try await fixture.makeManager(now: { clock.withLock { $0 } })
            let token = try await manager.requestDownload(
                video: try await fixture.video("protected"),
                parameters: DownloadParameters(licenseTerms: LicenseTerms(kind: .rental, rentalDurationSeconds: 60)))
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            #expect(await manager.offlineVideo(token)?.playableOffline == true)
            clock.withLock { $0 = $0.addingTimeInterval(3600) }
            let expired = try #require(await manager.offlineVideo(token))
            #expect(!expired.playableOffline && expired.unplayableReason == "license expired")
            // The server issues the renewal against its own clock: the new expiry is later
            // than the first one.
            let before = try #require(await manager.licenseExpiration(token))
            let after = try await manager.renewLicense(token: token)
            #expect(after >= before)
            await manager.shutdown()
        }
    }

    @Test func aMalformedPlaylistFailsFastWithAPlaylistError() async throws {
        try await withEngine({ configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/clear/400k/index.m3u8", fault: .malformedPlaylist)
            ])
        }) { fixture in
            let manager = try await fixture.makeManager()
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            #expect(try await manager.wait(for: token) { $0 == .failed || $0 == .downloaded } == .failed)
            guard case .playlist = await manager.status(token)?.failure else {
                Issue.record("expected a playlist failure, got \(String(describing: await manager.status(token)?.failure))")
                return
            }
            await manager.shutdown()
        }
    }

    @Test func aMissingSegmentFailsWithItsStatus() async throws {
        try await withEngine({ configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/clear/400k/seg3.ts", fault: .status(404, retryAfter: nil))
            ])
        }) { fixture in
            let manager = try await fixture.makeManager()
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            #expect(try await manager.wait(for: token) { $0 == .failed || $0 == .downloaded } == .failed)
            #expect(await manager.status(token)?.failure == .httpStatus(404))
            await manager.shutdown()
        }
    }

    @Test func passingServerErrorsAreRetriedAndBounded() async throws {
        // Two 503s, then the segment is served: the download completes.
        try await withEngine({ configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/clear/400k/seg2.ts", fault: .status(503, retryAfter: nil), count: 2)
            ])
        }) { fixture in
            let manager = try await fixture.makeManager()
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            #expect(try await manager.wait(for: token) { $0 == .failed || $0 == .downloaded } == .downloaded)
            #expect(fixture.server.requestLog.filter { $0.path == "/videos/clear/400k/seg2.ts" && $0.status == 503 }.count == 2)
            await manager.shutdown()
        }
        // 503 for ever: the retries stop after the bound and the download fails.
        try await withEngine({ configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/clear/400k/seg2.ts", fault: .status(503, retryAfter: nil))
            ])
        }) { fixture in
            let manager = try await fixture.makeManager(maximumAttempts: 3)
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            #expect(try await manager.wait(for: token) { $0 == .failed || $0 == .downloaded } == .failed)
            let gaveUp = fixture.server.nowNanoseconds
            guard case .retriesExhausted(let attempts, _) = await manager.status(token)?.failure else {
                Issue.record("expected retriesExhausted")
                return
            }
            // Three attempts in a row without progress: the bound. (A run in which another
            // segment was stored before the 503 came reset the count, as bytes flowing do,
            // so there may have been more 503s before those three.)
            let path = "/videos/clear/400k/seg2.ts"
            let refused = { (record: OriginRequestRecord) in record.path == path && record.status == 503 }
            let refusals = try await fixture.server.requestLog(count: 3, where: refused).filter(refused).count
            #expect(attempts == 3 && refusals >= 3, "\(refusals) answers 503 for \(attempts) attempts")
            // Given up: nothing more is asked for.
            try await watchWindow(.seconds(1))  // the property: no retry within more than twice the backoff's cap (400 ms)
            let asked = fixture.server.requests(startedBetween: gaveUp, and: fixture.server.nowNanoseconds).filter { $0.path == path }
            #expect(asked.isEmpty, "asked for \(asked.count) times after giving up")
            await manager.shutdown()
        }
    }

    @Test func lowStorageSuspendsAndResumesWhenSpaceIsBack() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager(cushion: Int64.max / 2)
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            #expect(try await manager.wait(for: token) { $0 == .suspended(.storage) } == .suspended(.storage))
            #expect(fixture.server.requestLog.filter { $0.path.hasSuffix(".ts") }.isEmpty)
            await manager.setStorageCushion(bytes: 1 << 20)
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            await manager.shutdown()
        }
    }

    @Test func theCellularSettingAppliesToDownloadsRequestedAfterIt() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            fixture.showPath([.cellular])
            let video = try await fixture.video("clear")
            let before = try await manager.requestDownload(video: video)
            await manager.setAllowsCellular(true)
            let after = try await manager.requestDownload(video: video)
            #expect(try await manager.wait(for: after) { $0 == .downloaded || $0 == .failed } == .downloaded)
            #expect(await manager.status(before)?.state == .suspended(.cellularNotAllowed))
            // Only the later download went out, over cellular: 21 segments and its playlists.
            #expect(fixture.requests(through: .cellular).filter { $0.path.hasSuffix(".ts") }.count == 21)
            #expect(fixture.requests(through: .wifi).isEmpty)
            await manager.shutdown()
        }
    }

    @Test func sizeEstimateAndVariantsComeFromTheMasterPlaylist() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            let video = try await fixture.video("clear")
            let variants = try await manager.variants(for: video)
            #expect(variants.map(\.bandwidth) == [400_000, 1_200_000, 3_000_000, 6_000_000, 64_000])
            let low = try await manager.estimateDownloadSize(video: video, parameters: DownloadParameters())
            let high = try await manager.estimateDownloadSize(video: video, parameters: DownloadParameters(requestedBitrate: 2_000_000))
            #expect(low == 400_000 * 125 / 8 && high == 3_000_000 * 125 / 8)
            await manager.shutdown()
        }
    }
}
