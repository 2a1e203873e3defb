import BenchCore
import Crypto
import FixtureOrigin
import Foundation
import OfflineDownloads
import Synchronization
import TestSupport
import Testing

/// Storage and recovery at the engine's level: the free-space cushion during a
/// download, files gone or cut short at restore, and a reboot while suspended.
@Suite(.timeLimit(.minutes(5))) struct EngineStorageTests {
    final class Events: Sendable {
        let all = Mutex<[EngineEvent]>([])
        var states: [DownloadState] {
            all.withLock { $0.compactMap { if case .stateChanged(_, _, let to) = $0 { to } else { nil } } }
        }
    }

    static func sha256(_ path: String) throws -> String {
        SHA256.hash(data: try Data(contentsOf: URL(fileURLWithPath: path))).map { String(format: "%02x", $0) }.joined()
    }

    /// Expects segments 0-20 of `clear`'s 400k variant in `package`, byte for byte.
    static func expectWhole(_ package: String, _ fixture: EngineFixture, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let manifest = try fixture.server.store.hashManifest(videoIDs: ["clear"])
        for index in 0..<21 {
            let hash = try? sha256(package + String(format: "/video/seg%05d.ts", index))
            #expect(hash == manifest.entries["/videos/clear/400k/seg\(index).ts"]?.sha256, "segment \(index)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test func freeSpaceFallingUnderTheCushionMidwaySuspendsAndResumes() async throws {
        try await withEngine(sizeScale: 0.2, { configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/clear/400k/*.ts", fault: .addedTimeToFirstByte(.milliseconds(100)))
            ])
        }) { fixture in
            // The disk as the engine sees it: plenty, then nearly full, then freed.
            let free = Mutex<Int64>(10 << 30)
            let manager = try await fixture.makeManager(cushion: 64 << 20, freeSpace: { _ in free.withLock { $0 } })
            let events = Events()
            let listener = Task { for await event in manager.events { events.all.withLock { $0.append(event) } } }
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            try await manager.wait(for: token, progress: 0.3)
            free.withLock { $0 = 10 << 20 }
            #expect(try await manager.wait(for: token) { $0 == .suspended(.storage) } == .suspended(.storage), "\(events.states)")
            var messages: [String] = []
            await eventually("an error event naming the storage cushion (errors: \(messages))") {
                messages = events.all.withLock { $0.compactMap { if case .error(token, let message) = $0 { message } else { nil } } }
                return messages.contains { $0.contains("storage cushion") }
            }
            // Suspended: nothing more is asked of the origin. The worker reports the shortage
            // only once every fetch under way has ended, and the mark is one that no request
            // sent before can pass (it may still be on its way through the conditioner).
            let suspended = try await fixture.markAfterTheEnginesRequests()
            try await watchWindow(.seconds(1))  // the property: a second suspended, in which nothing may be asked
            let asked = fixture.server.requests(startedAfter: suspended)
            #expect(asked.isEmpty, "asked for while suspended: \(asked.map(\.path))")
            #expect(await manager.status(token)?.state == .suspended(.storage))

            free.withLock { $0 = 10 << 30 }
            #expect(try await manager.wait(for: token, seconds: 120) { $0 == .downloaded || $0 == .failed } == .downloaded)
            #expect(!events.states.contains(.failed))
            try Self.expectWhole(fixture.package(token), fixture)
            await manager.shutdown()
            listener.cancel()
        }
    }

    @Test func aMissingOrShortSegmentFileIsFetchedAgainAtRestore() async throws {
        try await withEngine(sizeScale: 0.2, { configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/clear/400k/seg1?.ts", fault: .addedTimeToFirstByte(.seconds(60)))
            ])
        }) { fixture in
            var manager = try await fixture.makeManager()
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            let video = fixture.package(token) + "/video"
            // Segments 0-9 come at once; 10 and later are held.
            await eventually("segments 0-9 stored (\(StoppedPackage(videoDirectory: video).stored.sorted()))") {
                StoppedPackage(videoDirectory: video).stored.count >= 10
            }
            await manager.shutdown()
            fixture.server.setFaultRules(try FaultRuleSet(rules: []))
            // Segment 2 is lost, segment 4 cut short (say, by a disk repair) while the app was closed.
            try FileManager.default.removeItem(atPath: video + "/seg00002.ts")
            let short = try FileHandle(forWritingTo: URL(fileURLWithPath: video + "/seg00004.ts"))
            try short.truncate(atOffset: 1000)
            try short.close()
            // Requests cut by the shutdown are logged whenever the origin notices: judge by start.
            let restart = fixture.server.nowNanoseconds

            manager = try await fixture.makeManager(termination: .crash)
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            await manager.shutdown()
            let again = fixture.server.requests(startedAfter: restart).map(\.path)
            #expect(again.contains("/videos/clear/400k/seg2.ts") && again.contains("/videos/clear/400k/seg4.ts"), "\(again)")
            for index in [0, 1, 3, 5, 6, 7, 8, 9] {
                #expect(!again.contains("/videos/clear/400k/seg\(index).ts"), "segment \(index) was whole and fetched again")
            }
            try Self.expectWhole(fixture.package(token), fixture)
        }
    }

    @Test func aRebootWhileSuspendedFailsTheDownloadAtOnce() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            fixture.showPath([])
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            #expect(try await manager.wait(for: token) { $0 == .suspended(.network) } == .suspended(.network))
            await manager.shutdown()
            fixture.showPath([.wifi])
            let relaunched = try await fixture.makeManager(termination: .rebootWhileSuspended)
            let status = try #require(await relaunched.status(token))
            #expect(status.state == .failed && status.failure == .interrupted(.rebootWhileSuspended))
            try await watchWindow(.milliseconds(300))  // the property: it stays failed, nothing restarts it
            #expect(await relaunched.status(token)?.state == .failed, "it must not resume by itself")
            try await relaunched.delete(token)
            #expect(await relaunched.tokens.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: fixture.package(token)))
            await relaunched.shutdown()
        }
    }
}
