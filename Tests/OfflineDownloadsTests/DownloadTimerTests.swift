import BenchCore
import FixtureOrigin
import Foundation
import OfflineDownloads
import Synchronization
import Testing

/// Time-driven engine behaviour against the real origin: the download's own expiry
/// (eviction) and the automatic renewal of rentals in the foreground only. Bounds are
/// generous; the due times themselves are tested with fixed dates in LicenseClientTests.
@Suite struct DownloadTimerTests {
    final class Events: Sendable {
        let all = Mutex<[EngineEvent]>([])
        func count(_ matches: (EngineEvent) -> Bool) -> Int { all.withLock { $0.filter(matches).count } }
    }

    static func isRenewed(_ event: EngineEvent) -> Bool {
        if case .licenseRenewed = event { return true }
        return false
    }

    static func isEvicted(_ event: EngineEvent) -> Bool {
        if case .evicted = event { return true }
        return false
    }

    @Test func aDownloadIsEvictedWhenItsOwnExpiryPasses() async throws {
        try await withEngine { fixture in
            // The engine's clock stands still until the download is stored, however long a
            // loaded machine takes; its expiry watcher wakes every 5 s (real) meanwhile and
            // finds nothing due. Then the clock moves past the expiry.
            let clock = Mutex(Date())
            let manager = try await fixture.makeManager(now: { clock.withLock { $0 } })
            let events = Events()
            let listener = Task { for await event in manager.events { events.all.withLock { $0.append(event) } } }
            let token = try await manager.requestDownload(
                video: try await fixture.video("protected"),
                parameters: DownloadParameters(expiresAt: clock.withLock { $0 }.addingTimeInterval(5)))
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            #expect(await manager.status(token)?.expiresAt != nil)
            let package = fixture.scratch.path + "/packages/\(token)"
            #expect(FileManager.default.fileExists(atPath: package))
            #expect(events.count(Self.isEvicted) == 0, "evicted before its expiry")
            clock.withLock { $0 = $0.addingTimeInterval(10) }
            for _ in 0..<1500 where await manager.status(token) != nil { try await Task.sleep(for: .milliseconds(20)) }
            let status = await manager.status(token)
            let license = await manager.licenseExpiration(token)
            #expect(status == nil && license == nil)
            #expect(!FileManager.default.fileExists(atPath: package), "the package is still on disk")
            for _ in 0..<1500 where events.count(Self.isEvicted) == 0 { try await Task.sleep(for: .milliseconds(20)) }
            #expect(events.count(Self.isEvicted) == 1)
            await manager.shutdown()
            listener.cancel()
        }
    }

    @Test func aDownloadThatExpiredWhileTheAppWasClosedIsEvictedAtStart() async throws {
        try await withEngine { fixture in
            let clock = Mutex(Date())
            let first = try await fixture.makeManager(now: { clock.withLock { $0 } })
            let token = try await first.requestDownload(
                video: try await fixture.video("clear"),
                parameters: DownloadParameters(expiresAt: Date().addingTimeInterval(3600)))
            #expect(try await first.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            await first.shutdown()
            // The app comes back a day later.
            clock.withLock { $0 = $0.addingTimeInterval(86_400) }
            let second = try await fixture.makeManager(now: { clock.withLock { $0 } })
            #expect(await second.status(token) == nil)
            #expect(await second.tokens.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: fixture.scratch.path + "/packages/\(token)"))
            await second.shutdown()
        }
    }

    /// A protected video downloaded on a 4 s rental, with automatic renewal 3 s ahead;
    /// the manager's events are collected from the start.
    static func downloadShortRental(
        _ fixture: EngineFixture
    ) async throws -> (DownloadManager, Events, Task<Void, Never>, DownloadToken) {
        let manager = try await fixture.makeManager(renewalLead: .seconds(3))
        let events = Events()
        let listener = Task { for await event in manager.events { events.all.withLock { $0.append(event) } } }
        let token = try await manager.requestDownload(
            video: try await fixture.video("protected"),
            parameters: DownloadParameters(licenseTerms: LicenseTerms(kind: .rental, rentalDurationSeconds: 4)))
        #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
        return (manager, events, listener, token)
    }

    @Test func aRentalIsRenewedBeforeItExpiresOnlyInTheForeground() async throws {
        try await withEngine { fixture in
            // A 4 s rental renewed 3 s ahead is due at half its life: every ~2 s.
            let (manager, events, listener, token) = try await Self.downloadShortRental(fixture)
            for _ in 0..<500 where events.count(Self.isRenewed) == 0 { try await Task.sleep(for: .milliseconds(20)) }
            #expect(events.count(Self.isRenewed) >= 1, "no automatic renewal in the foreground")

            // The app prepares for the background (a renewal under way finishes, none
            // starts), then goes there: no exchange reaches the server.
            // Judged by the stored expiry and the origin's request stamps, not by the events:
            // the listener may still be delivering those of a renewal that landed before.
            #expect(await manager.prepareForBackground().isEmpty)
            await manager.setForeground(false)
            let background = fixture.server.nowNanoseconds
            let before = try #require(await manager.licenseExpiration(token))
            try await Task.sleep(for: .seconds(5))  // a window to watch, in which the 4 s rental runs out
            let asked = fixture.server.requests(startedAfter: background).filter { $0.path.hasPrefix("/license") }
            #expect(asked.isEmpty, "license requests in the background: \(asked.map(\.path))")
            #expect(!events.all.withLock { $0 }.contains { if case .licenseFailed = $0 { true } else { false } })
            let lapsed = try #require(await manager.licenseExpiration(token))
            #expect(lapsed == before, "the license was renewed in the background")
            #expect(lapsed <= Date(), "the rental should have run out during 5 s in the background")

            // Back in the foreground the renewal is due at once (the rental has run out).
            let renewedBefore = events.count(Self.isRenewed)
            await manager.setForeground(true)
            for _ in 0..<500 where await manager.licenseExpiration(token) == lapsed { try await Task.sleep(for: .milliseconds(20)) }
            for _ in 0..<500 where events.count(Self.isRenewed) == renewedBefore { try await Task.sleep(for: .milliseconds(20)) }
            #expect(events.count(Self.isRenewed) > renewedBefore, "no renewal after the return to the foreground")
            // Compared with the lapsed expiry, not the clock: a loaded machine may take
            // seconds between the renewal and this check.
            let expiration = try #require(await manager.licenseExpiration(token))
            #expect(expiration > lapsed, "the renewal did not extend the rental")
            await manager.shutdown()
            listener.cancel()
        }
    }

    /// Renewals answered 1.5 s late run almost back to back, so one is nearly always under
    /// way: `prepareForBackground()` returns only once it has landed, and none starts
    /// after it until the app is in the foreground again.
    @Test func prepareForBackgroundWaitsForARenewalUnderWay() async throws {
        try await withEngine { fixture in
            let (manager, events, listener, token) = try await Self.downloadShortRental(fixture)
            fixture.server.setFaultRules(try FaultRuleSet(rules: [
                FaultRule(path: "/license/renew", fault: .addedTimeToFirstByte(.milliseconds(1_500)))
            ]))
            for _ in 0..<500 where events.count(Self.isRenewed) < 2 { try await Task.sleep(for: .milliseconds(20)) }
            #expect(events.count(Self.isRenewed) >= 2, "renewals should run back to back")

            // Judged by the stored expiry and the origin's request stamps, not by the events:
            // the listener may still be delivering the one of the renewal that just landed.
            #expect(await manager.prepareForBackground().isEmpty)
            let prepared = fixture.server.nowNanoseconds
            let expiration = await manager.licenseExpiration(token)
            try await Task.sleep(for: .seconds(3))  // a window to watch
            #expect(await manager.licenseExpiration(token) == expiration, "a renewal landed after prepareForBackground() returned")
            #expect(fixture.server.requests(startedAfter: prepared).filter { $0.path == "/license/renew" }.isEmpty,
                    "a renewal was sent after prepareForBackground() returned")
            #expect(!events.all.withLock { $0 }.contains { if case .licenseFailed = $0 { true } else { false } })

            // Back in the foreground, renewals start again.
            let renewed = events.count(Self.isRenewed)
            await manager.setForeground(true)
            for _ in 0..<500 where await manager.licenseExpiration(token) == expiration { try await Task.sleep(for: .milliseconds(20)) }
            for _ in 0..<500 where events.count(Self.isRenewed) == renewed { try await Task.sleep(for: .milliseconds(20)) }
            #expect(await manager.licenseExpiration(token) != expiration, "no renewal after setForeground(true)")
            #expect(events.count(Self.isRenewed) > renewed, "no renewal event after setForeground(true)")
            await manager.shutdown()
            listener.cancel()
        }
    }
}
