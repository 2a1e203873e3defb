import BenchCore
import FixtureOrigin
import Foundation
import OfflineDownloads
import Synchronization
import TestSupport
import Testing

/// Time-driven engine behaviour against the real origin: the download's own expiry
/// (eviction) and the automatic renewal of rentals in the foreground only. Bounds are
/// generous; the due times themselves are tested with fixed dates in LicenseClientTests.
@Suite(.timeLimit(.minutes(5))) struct DownloadTimerTests {
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
            await eventually("the eviction of \(token) once its expiry passed") { await manager.status(token) == nil }
            let status = await manager.status(token)
            let license = await manager.licenseExpiration(token)
            #expect(status == nil && license == nil)
            #expect(!FileManager.default.fileExists(atPath: package), "the package is still on disk")
            await eventually("the evicted event") { events.count(Self.isEvicted) > 0 }
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
            await eventually("an automatic renewal in the foreground") { events.count(Self.isRenewed) >= 1 }

            // The app prepares for the background (a renewal under way finishes, none
            // starts), then goes there: no exchange reaches the server.
            // Judged by the stored expiry and the origin's request stamps, not by the events:
            // the listener may still be delivering those of a renewal that landed before.
            #expect(await manager.prepareForBackground().isEmpty)
            await manager.setForeground(false)
            let background = fixture.server.nowNanoseconds
            let before = try #require(await manager.licenseExpiration(token))
            // In the background until the rental has run out: its renewal fell due in that
            // time (3 s ahead of the end), and nothing may renew it.
            await eventually("the rental running out", every: .milliseconds(50)) { Date() > before }
            #expect(!events.all.withLock { $0 }.contains { if case .licenseFailed = $0 { true } else { false } })
            let lapsed = try #require(await manager.licenseExpiration(token))
            #expect(lapsed == before, "the license was renewed in the background")

            // Back in the foreground the renewal is due at once (the rental has run out).
            let foreground = fixture.server.nowNanoseconds
            let renewedBefore = events.count(Self.isRenewed)
            await manager.setForeground(true)
            await eventually("a renewal after the return to the foreground") { await manager.licenseExpiration(token) != lapsed }
            await eventually("its licenseRenewed event") { events.count(Self.isRenewed) > renewedBefore }
            // Compared with the lapsed expiry, not the clock: a loaded machine may take
            // seconds between the renewal and this check.
            let expiration = try #require(await manager.licenseExpiration(token))
            #expect(expiration > lapsed, "the renewal did not extend the rental")
            // The origin's record of the time in the background, read once a later exchange
            // has landed (with the responses still under way): no license request in it.
            let asked = fixture.server.requests(startedBetween: background, and: foreground).filter { $0.path.hasPrefix("/license") }
            #expect(asked.isEmpty, "license requests in the background: \(asked.map(\.path))")
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
            await eventually("two renewals back to back") { events.count(Self.isRenewed) >= 2 }

            // Judged by the stored expiry and the origin's request stamps, not by the events:
            // the listener may still be delivering the one of the renewal that just landed.
            #expect(await manager.prepareForBackground().isEmpty)
            let prepared = fixture.server.nowNanoseconds
            let expiration = try #require(await manager.licenseExpiration(token))
            // Held until the rental has run out: its next renewal fell due in that time (3 s
            // ahead of the end), so one that prepareForBackground() failed to hold began in it.
            await eventually("the rental running out", every: .milliseconds(50)) { Date() > expiration }
            #expect(await manager.licenseExpiration(token) == expiration, "a renewal landed after prepareForBackground() returned")
            #expect(!events.all.withLock { $0 }.contains { if case .licenseFailed = $0 { true } else { false } })

            // Back in the foreground, renewals start again.
            let foreground = fixture.server.nowNanoseconds
            let renewed = events.count(Self.isRenewed)
            await manager.setForeground(true)
            await eventually("a renewal after setForeground(true)") { await manager.licenseExpiration(token) != expiration }
            await eventually("a renewal event after setForeground(true)") { events.count(Self.isRenewed) > renewed }
            // The origin's record of the time held, read once a later renewal has landed.
            #expect(fixture.server.requests(startedBetween: prepared, and: foreground).filter { $0.path == "/license/renew" }.isEmpty,
                    "a renewal was sent after prepareForBackground() returned")
            await manager.shutdown()
            listener.cancel()
        }
    }
}
