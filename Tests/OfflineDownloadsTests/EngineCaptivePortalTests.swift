import BenchCore
import Crypto
import FixtureOrigin
import Foundation
import OfflineDownloads
import Synchronization
import TestSupport
import Testing

/// A captive portal between the engine and the origin, end to end through the
/// conditioner: the origin answers 200 with its login page (`text/html`) in place of
/// segments, playlists or the license. The download suspends for the network, retries
/// without bound (the managers here allow only 2 bounded attempts, so a portal counted
/// as a server error would fail them), stores nothing of the page, and completes byte
/// for byte once the portal lets it through.
@Suite(.timeLimit(.minutes(5))) struct EngineCaptivePortalTests {
    /// The engine's events, collected as they come.
    final class Events: Sendable {
        let all = Mutex<[EngineEvent]>([])

        var states: [DownloadState] {
            all.withLock { $0.compactMap { if case .stateChanged(_, _, let to) = $0 { to } else { nil } } }
        }

        /// The `error` events that name a captive portal.
        var portalErrors: [String] {
            all.withLock {
                $0.compactMap { if case .error(_, let message) = $0, message.hasPrefix("captive portal") { message } else { nil } }
            }
        }

        /// Polls until `condition` holds, for up to `seconds` (generous: a loaded machine
        /// runs the whole suite at once); returns whether it held.
        func wait(seconds: Double = 120, until condition: (Events) -> Bool) async throws -> Bool {
            await pollUntil(within: seconds, every: .milliseconds(20)) { condition(self) }
        }
    }

    static func listen(to manager: DownloadManager) -> (Events, Task<Void, Never>) {
        let events = Events()
        let task = Task { for await event in manager.events { events.all.withLock { $0.append(event) } } }
        return (events, task)
    }

    static func sha256(_ path: String) throws -> String {
        SHA256.hash(data: try Data(contentsOf: URL(fileURLWithPath: path))).map { String(format: "%02x", $0) }.joined()
    }

    /// Every regular file under `directory` (relative paths) whose bytes hold the portal's page.
    static func filesHoldingThePage(under directory: String) -> [String] {
        let page = Data(HTTPFault.captivePortalPage.utf8.prefix(40))
        let names = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        return names.filter { name in
            guard let data = FileManager.default.contents(atPath: directory + "/" + name) else { return false }
            return data.range(of: page) != nil || data.range(of: Data("<html".utf8)) != nil
        }
    }

    /// The package of `token` is the origin's, byte for byte: the 21 segments of the
    /// clear video's 400k variant, its poster and its thumbnail.
    static func expectByteExact(_ fixture: EngineFixture, _ token: DownloadToken) throws {
        let package = fixture.package(token)
        let manifest = try fixture.server.store.hashManifest(videoIDs: ["clear"])
        for index in 0..<21 {
            let hash = try sha256(package + String(format: "/video/seg%05d.ts", index))
            #expect(hash == manifest.entries["/videos/clear/400k/seg\(index).ts"]?.sha256, "segment \(index)")
        }
        #expect(try sha256(package + "/poster.png") == manifest.entries["/videos/clear/poster.png"]?.sha256)
        #expect(try sha256(package + "/thumbnail.png") == manifest.entries["/videos/clear/thumb.png"]?.sha256)
        #expect(filesHoldingThePage(under: package).isEmpty)
    }

    /// The portal opens over segments 10–19 of a download under way: segments 0–9 are
    /// stored, then the download suspends for the network, again at each retry, and
    /// none of the page reaches the package; the portal goes, the download completes.
    @Test func aPortalOverSegmentsSuspendsTheDownloadAndNothingOfItIsStored() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager(maximumAttempts: 2)
            let (events, listener) = Self.listen(to: manager)
            defer { listener.cancel() }
            let video = try await fixture.video("clear")
            fixture.server.setFaultRules(try FaultRuleSet(rules: [
                FaultRule(id: "portal", path: "/videos/clear/400k/seg1?.ts", fault: .captivePortal)
            ]))
            let token = try await manager.requestDownload(video: video)
            // Three transfers in a row ended on the portal: more than the 2 bounded attempts.
            // (Each `error` event comes just before its suspension: wait for both.)
            let retried = try await events.wait {
                ($0.portalErrors.count >= 3 && $0.states.filter { $0 == .suspended(.network) }.count >= 3)
                    || $0.states.contains(.failed)
            }
            #expect(retried, "\(events.states)")
            #expect(!events.states.contains(.failed), "\(events.states)")
            #expect(events.states.filter { $0 == .suspended(.network) }.count >= 3, "\(events.states)")
            #expect(events.portalErrors.allSatisfy { $0.contains("/videos/clear/400k/seg1") }, "\(events.portalErrors)")
            let package = fixture.package(token)
            #expect(Self.filesHoldingThePage(under: package).isEmpty)
            let stored = try FileManager.default.contentsOfDirectory(atPath: package + "/video").filter { $0.hasSuffix(".ts") }
            #expect(!stored.contains { $0.hasPrefix("seg0001") }, "no segment 10–19 is stored: \(stored.sorted())")
            #expect((fixture.server.faultRules.fired["portal"] ?? 0) >= 3)

            fixture.server.setFaultRules(try FaultRuleSet())
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            #expect(await manager.offlineVideo(token)?.playableOffline == true)
            try Self.expectByteExact(fixture, token)
            await manager.shutdown()
        }
    }

    /// The device is behind the portal when the download is requested: the master
    /// playlist, and everything else, answers the login page. Nothing is planned or
    /// stored; once signed in, the download plans and completes.
    @Test func aPortalOnThePlaylistAtRequestTimeSuspendsUntilItGoes() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager(maximumAttempts: 2)
            let (events, listener) = Self.listen(to: manager)
            defer { listener.cancel() }
            let video = try await fixture.video("clear")
            fixture.server.setFaultRules(try FaultRuleSet(rules: [FaultRule(id: "portal", path: "/**", fault: .captivePortal)]))
            let requested = fixture.server.nowNanoseconds
            let token = try await manager.requestDownload(video: video)
            let retried = try await events.wait { $0.portalErrors.count >= 3 || $0.states.contains(.failed) }
            #expect(retried, "\(events.states)")
            #expect(!events.states.contains(.failed), "\(events.states)")
            #expect(events.portalErrors.allSatisfy { $0.contains("/videos/clear/master.m3u8") }, "\(events.portalErrors)")
            // Nothing past the master playlist was asked for: the page was not taken for one.
            let log = fixture.server.requests(startedAfter: requested)
            #expect(!log.isEmpty && log.allSatisfy { $0.path == "/videos/clear/master.m3u8" }, "\(log.map(\.path))")
            let package = fixture.package(token)
            #expect(Self.filesHoldingThePage(under: package).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: package + "/" + DownloadPlan.packageFileName), "nothing planned")
            #expect(await manager.status(token)?.progress == 0)

            fixture.server.setFaultRules(try FaultRuleSet())
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            try Self.expectByteExact(fixture, token)
            await manager.shutdown()
        }
    }

    /// The license server is behind the portal: its answer is the page, not a license.
    /// Nothing is stored as a license, no encrypted segment is fetched, the exchange is
    /// retried like an outage (beyond the bounded attempts), and the license comes once
    /// the portal goes.
    @Test func aLicenseAnsweredByThePortalIsRetriedAndNotStored() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager(maximumAttempts: 2)
            let (events, listener) = Self.listen(to: manager)
            defer { listener.cancel() }
            let video = try await fixture.video("protected")
            fixture.server.setFaultRules(try FaultRuleSet(rules: [FaultRule(id: "portal", path: "/license**", fault: .captivePortal)]))
            let token = try await manager.requestDownload(video: video)
            let failures = { (events: Events) in
                events.all.withLock { $0.filter { if case .licenseFailed = $0 { true } else { false } }.count }
            }
            let retried = try await events.wait { failures($0) >= 3 || $0.states.contains(.failed) }
            #expect(retried, "\(events.states)")
            #expect(!events.states.contains(.failed), "\(events.states)")
            #expect(events.all.withLock { $0.allSatisfy { if case .licenseAcquired = $0 { false } else { true } } })
            #expect(await manager.licenseExpiration(token) == nil, "no license is stored")
            #expect(!FileManager.default.fileExists(atPath: fixture.package(token) + "/" + PackagedLicense.fileName))
            #expect(!fixture.server.requestLog.contains { $0.path.hasSuffix(".ts") }, "no segment before the license")
            #expect(!fixture.server.licenseServer.records.contains { if case .licenseIssued = $0.kind { true } else { false } })

            fixture.server.setFaultRules(try FaultRuleSet())
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            #expect(await manager.licenseExpiration(token) != nil)
            #expect(Self.filesHoldingThePage(under: fixture.package(token)).isEmpty)
            await manager.shutdown()
        }
    }
}
