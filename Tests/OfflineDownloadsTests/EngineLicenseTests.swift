import BenchCore
import FixtureOrigin
import Foundation
import OfflineDownloads
import Synchronization
import TestSupport
import Testing

/// Every license case at the engine's level, through the conditioner: acquired and
/// packaged, refused, badly signed, dual expiry, renewal with new terms, renewal offline.
@Suite(.timeLimit(.minutes(5))) struct EngineLicenseTests {
    final class Events: Sendable {
        let all = Mutex<[EngineEvent]>([])
        func contains(_ matches: (EngineEvent) -> Bool) -> Bool { all.withLock { $0.contains(where: matches) } }
    }

    static func listen(_ manager: DownloadManager, into events: Events) -> Task<Void, Never> {
        Task { for await event in manager.events { events.all.withLock { $0.append(event) } } }
    }

    static func isLicenseFailed(_ event: EngineEvent) -> Bool {
        if case .licenseFailed = event { return true }
        return false
    }

    @Test func theLicenseIsAcquiredToldAndKeptInThePackage() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            let events = Events()
            let listener = Self.listen(manager, into: events)
            let token = try await manager.requestDownload(
                video: try await fixture.video("protected"),
                parameters: DownloadParameters(licenseTerms: LicenseTerms(kind: .rental, rentalDurationSeconds: 3600)))
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            let expiration = try #require(await manager.licenseExpiration(token))
            await eventually("the licenseAcquired event") { events.contains { if case .licenseAcquired = $0 { true } else { false } } }
            #expect(events.contains { event in
                if case .licenseAcquired(token, let told) = event { return abs(told.timeIntervalSince(expiration)) < 1 }
                return false
            })
            // The package carries the signed license and its expiry.
            let packaged = try #require(try PackagedLicense.read(from: fixture.package(token)))
            let transport = HTTPTransport()
            #expect(LicenseClient(transport: transport, secret: Array("deadzone-license-secret".utf8)).isAuthentic(packaged.license))
            try await transport.shutdown()
            #expect(abs(packaged.expiration.timeIntervalSince(expiration)) < 1)
            #expect(packaged.license.kind == .rental && packaged.firstPlayedAt == nil)
            // The license went through the conditioner's WiFi listener.
            #expect(fixture.requests(through: .wifi).contains { $0.path == "/license" && $0.status == 200 })
            // delete removes the package, license.json with it.
            try await manager.delete(token)
            #expect(!FileManager.default.fileExists(atPath: fixture.package(token)))
            #expect(await manager.licenseExpiration(token) == nil)
            await manager.shutdown()
            listener.cancel()
        }
    }

    @Test func aLicenseTheServerRefusesFailsTheDownloadBeforeAnySegment() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            let events = Events()
            let listener = Self.listen(manager, into: events)
            // Eleven years: the license server refuses rentals over ten.
            let token = try await manager.requestDownload(
                video: try await fixture.video("protected"),
                parameters: DownloadParameters(licenseTerms: LicenseTerms(kind: .rental, rentalDurationSeconds: 11 * 365 * 86_400)))
            #expect(try await manager.wait(for: token) { $0 == .failed || $0 == .downloaded } == .failed)
            guard case .license(let reason) = await manager.status(token)?.failure else {
                Issue.record("expected a license failure, got \(String(describing: await manager.status(token)?.failure))")
                return
            }
            #expect(reason.contains("rental_duration_seconds"), "\(reason)")
            await eventually("the licenseFailed event") { events.contains(Self.isLicenseFailed) }
            #expect(fixture.server.requestLog.filter { $0.path == "/license" }.count == 1, "a refusal is not retried")
            #expect(!fixture.server.requestLog.contains { $0.path.hasSuffix(".ts") })
            #expect(await manager.licenseExpiration(token) == nil)
            await manager.shutdown()
            listener.cancel()
        }
    }

    /// The license server answers 503 twice, then a license. A transfer that waited at the
    /// license gate used to end without a word: the download stayed `downloading` with no
    /// transfer and no retry that could move it (a retry is stale in `downloading`), for
    /// ever. Now the failed gate ends the transfer with a passing failure, retried.
    @Test func aLicenseExchangeThatFailsForAWhileIsRetriedUntilTheDownloadCompletes() async throws {
        try await withEngine({ configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/license", method: "POST", fault: .status(503, retryAfter: nil), count: 2)
            ])
        }) { fixture in
            let manager = try await fixture.makeManager()
            let events = Events()
            let listener = Self.listen(manager, into: events)
            let token = try await manager.requestDownload(video: try await fixture.video("protected"))
            let final = try await manager.wait(for: token, seconds: 150) { $0 == .downloaded || $0 == .failed }
            let statuses = fixture.server.requestLog.filter { $0.path == "/license" }.map(\.status)
            #expect(final == .downloaded, "state \(String(describing: final)); license answers \(statuses)")
            #expect(fixture.server.requestLog.filter { $0.path == "/license" }.map(\.status) == [503, 503, 200])
            #expect(events.contains(Self.isLicenseFailed))
            #expect(await manager.licenseExpiration(token) != nil)
            await manager.shutdown()
            listener.cancel()
        }
    }

    @Test func aLicenseWithABadSignatureFailsTheDownload() async throws {
        try await withEngine { fixture in
            // The engine verifies with another secret than the server signs with.
            let manager = try await fixture.makeManager(licenseSecret: Array("not-the-servers-secret".utf8))
            let token = try await manager.requestDownload(video: try await fixture.video("protected"))
            #expect(try await manager.wait(for: token) { $0 == .failed || $0 == .downloaded } == .failed)
            guard case .license(let reason) = await manager.status(token)?.failure else {
                Issue.record("expected a license failure, got \(String(describing: await manager.status(token)?.failure))")
                return
            }
            #expect(reason.contains("bad signature"), "\(reason)")
            #expect(!fixture.server.requestLog.contains { $0.path.hasSuffix(".ts") })
            #expect(!FileManager.default.fileExists(atPath: fixture.package(token) + "/" + PackagedLicense.fileName))
            await manager.shutdown()
        }
    }

    @Test func thePlayDurationStartsAtTheFirstPlayback() async throws {
        try await withEngine { fixture in
            let start = Date()
            let clock = Mutex(start)
            let manager = try await fixture.makeManager(now: { clock.withLock { $0 } })
            // A day's rental with 60 s of play once playback starts.
            let token = try await manager.requestDownload(
                video: try await fixture.video("protected"),
                parameters: DownloadParameters(
                    licenseTerms: LicenseTerms(kind: .rental, rentalDurationSeconds: 86_400, playDurationSeconds: 60)))
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            let rentalEnd = try #require(await manager.licenseExpiration(token))
            #expect(rentalEnd > start.addingTimeInterval(86_000))
            // Two minutes later, never played: still playable (the play duration has not started).
            clock.withLock { $0 = start.addingTimeInterval(120) }
            #expect(await manager.offlineVideo(token)?.playableOffline == true)
            try await manager.playbackStarted(token)
            let playEnd = try #require(await manager.licenseExpiration(token))
            #expect(abs(playEnd.timeIntervalSince(start.addingTimeInterval(180))) < 1, "\(playEnd)")
            let packaged = try #require(try PackagedLicense.read(from: fixture.package(token)))
            #expect(abs(packaged.expiration.timeIntervalSince(playEnd)) < 1 && packaged.firstPlayedAt != nil)
            // A second playback does not move the start.
            clock.withLock { $0 = start.addingTimeInterval(150) }
            try await manager.playbackStarted(token)
            #expect(await manager.licenseExpiration(token) == playEnd)
            #expect(await manager.offlineVideo(token)?.playableOffline == true)
            clock.withLock { $0 = start.addingTimeInterval(181) }
            let expired = try #require(await manager.offlineVideo(token))
            #expect(!expired.playableOffline && expired.unplayableReason == "license expired")
            await manager.shutdown()
        }
    }

    @Test func renewingOfflineFailsClearlyAndSendsNothing() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            let video = try await fixture.video("protected")
            let rental = DownloadParameters(licenseTerms: LicenseTerms(kind: .rental, rentalDurationSeconds: 600))
            let token = try await manager.requestDownload(video: video, parameters: rental)
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            // Every interface down, and the path says so.
            fixture.conditioner.setState(.wifi, .down(.refuse))
            fixture.conditioner.setState(.cellular, .down(.refuse))
            fixture.showPath([])
            let requests = fixture.server.requestLog.count
            await #expect(throws: EngineError.offline("renewing a license needs the network")) {
                try await manager.renewLicense(token: token, video: video, parameters: rental)
            }
            await #expect(throws: EngineError.self) { try await manager.renewLicense(token: token) }
            #expect(fixture.server.requestLog.count == requests)
            #expect(await manager.offlineVideo(token)?.playableOffline == true, "a failed renewal keeps the license")
            await manager.shutdown()
        }
    }

    @Test func renewingWithNewTermsExchangesANewLicense() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            let events = Events()
            let listener = Self.listen(manager, into: events)
            let video = try await fixture.video("protected")
            let rental = DownloadParameters(licenseTerms: LicenseTerms(kind: .rental, rentalDurationSeconds: 600))
            let token = try await manager.requestDownload(video: video, parameters: rental)
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            let first = try #require(await manager.licenseExpiration(token))
            // The same terms renew at the renewal endpoint.
            let renewed = try await manager.renewLicense(token: token, video: video, parameters: rental)
            #expect(renewed >= first && renewed < .distantFuture)
            #expect(fixture.server.requestLog.contains { $0.path == "/license/renew" && $0.status == 200 })
            // Bought outright: a new purchase license replaces the rental.
            let bought = try await manager.renewLicense(token: token, video: video, parameters: DownloadParameters())
            #expect(bought == .distantFuture)
            #expect(try PackagedLicense.read(from: fixture.package(token))?.license.kind == .purchase)
            #expect(fixture.server.requestLog.filter { $0.path == "/license" && $0.status == 200 }.count == 2)
            let renewals = { events.all.withLock { $0.filter { if case .licenseRenewed = $0 { true } else { false } }.count } }
            await eventually("two licenseRenewed events (\(renewals()) so far)") { renewals() >= 2 }
            #expect(renewals() == 2)
            // Another video's entry is refused.
            await #expect(throws: EngineError.self) {
                try await manager.renewLicense(token: token, video: try await fixture.video("clear"), parameters: rental)
            }
            await manager.shutdown()
            listener.cancel()
        }
    }
}
