import BenchCore
import Crypto
import FixtureOrigin
import Foundation
import LinkConditioner
import OfflineDownloads
import Synchronization
import Testing

/// The network policy end to end, through the conditioner: which interface carries
/// the bytes (the origin's log names it, from the PROXY header), and a stall the path
/// does not show.
@Suite struct EngineNetworkPolicyTests {
    final class Events: Sendable {
        let all = Mutex<[EngineEvent]>([])
        var states: [DownloadState] {
            all.withLock { $0.compactMap { if case .stateChanged(_, _, let to) = $0 { to } else { nil } } }
        }
    }

    static func sha256(_ path: String) throws -> String {
        SHA256.hash(data: try Data(contentsOf: URL(fileURLWithPath: path))).map { String(format: "%02x", $0) }.joined()
    }

    @Test func cellularCarriesNoByteUnlessTheDownloadAllowsIt() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            fixture.showPath([.cellular])
            let video = try await fixture.video("clear")
            let requested = fixture.server.nowNanoseconds
            let refused = try await manager.requestDownload(video: video)
            #expect(try await manager.wait(for: refused) { $0 == .suspended(.cellularNotAllowed) } == .suspended(.cellularNotAllowed))
            try await Task.sleep(for: .milliseconds(500))  // a window to watch: nothing may go out
            // Not even a playlist went out: nothing through cellular, nothing at all.
            #expect(fixture.requests(through: .cellular).isEmpty)
            #expect(fixture.server.requests(startedAfter: requested).isEmpty)

            let allowed = try await manager.requestDownload(video: video, parameters: DownloadParameters(allowsCellular: true))
            #expect(try await manager.wait(for: allowed) { $0 == .downloaded || $0 == .failed } == .downloaded)
            #expect(fixture.bytesSent(through: .cellular) > 0)
            #expect(fixture.requests(through: .wifi).isEmpty)
            #expect(await manager.status(refused)?.state == .suspended(.cellularNotAllowed))
            // WiFi comes back: the refused download finishes over WiFi only.
            let cellularBytes = fixture.bytesSent(through: .cellular)
            fixture.showPath([.wifi, .cellular])
            #expect(try await manager.wait(for: refused) { $0 == .downloaded || $0 == .failed } == .downloaded)
            #expect(fixture.bytesSent(through: .cellular) == cellularBytes)
            #expect(fixture.bytesSent(through: .wifi) > 0)
            await manager.shutdown()
        }
    }

    @Test func wifiIsPreferredWhenBothAreUp() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            fixture.showPath([.cellular, .wifi])
            let token = try await manager.requestDownload(
                video: try await fixture.video("clear"), parameters: DownloadParameters(allowsCellular: true))
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            #expect(fixture.bytesSent(through: .wifi) > 0)
            #expect(fixture.requests(through: .cellular).isEmpty, "\(fixture.requests(through: .cellular).map(\.path))")
            await manager.shutdown()
        }
    }

    @Test func aStallThePathDoesNotShowSuspendsAndResumesByRange() async throws {
        // 1 Mbit/s WiFi and 60 kB segments, two at a time: each takes about a second, so
        // the blackhole catches segments half stored even when a loaded machine is slow
        // to apply it.
        let wifi = InterfaceLink(downlink: LinkDirectionParameters(rate: .constant(bitsPerSecond: 1_000_000)))
        try await withEngine(sizeScale: 0.2, wifi: wifi) { fixture in
            let manager = try await fixture.makeManager(stallTimeout: .milliseconds(800))
            let events = Events()
            let listener = Task { for await event in manager.events { events.all.withLock { $0.append(event) } } }
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            try await manager.wait(for: token, progress: 0.05)
            let package = fixture.package(token)
            // A loaded machine can be slow to apply the blackhole, and the segment seen under
            // way may have finished by then: try again (up to 4 times) until the stall
            // catches a segment half stored, which is what the Range resume needs.
            var atStall = StoppedPackage(videoDirectory: package + "/video")
            var listing: [String] = []
            for attempt in 1...4 {
                // Wait for a segment under way (10 to 30 of its 60 kB), so it is caught in the middle.
                let underWay = Date().addingTimeInterval(60)
                while Date() < underWay {
                    let parts = StoppedPackage(videoDirectory: package + "/video").parts.values
                    if parts.contains(where: { (10_000..<30_000).contains($0) }) { break }
                    try await Task.sleep(for: .milliseconds(2))
                }
                // WiFi blackholes; the path still says WiFi is up (no update is given).
                fixture.conditioner.setState(.wifi, .down(.blackhole), pathUpdate: .withheld)
                #expect(try await manager.wait(for: token, seconds: 120) { $0 == .suspended(.network) } == .suspended(.network),
                        "\(events.states)")
                #expect(fixture.path.currentPath.interface(.wifi) != nil, "the path must still show WiFi")
                // The `.part` files are final now: the worker reports the stall only once every
                // fetch under way has ended, and later attempts get no byte through the blackhole.
                atStall = StoppedPackage(videoDirectory: package + "/video")
                listing = ((try? FileManager.default.contentsOfDirectory(atPath: package + "/video")) ?? []).sorted().map { name in
                    "\(name):\((try? FileManager.default.attributesOfItem(atPath: package + "/video/" + name)[.size] as? Int) ?? -1)"
                }
                if !atStall.parts.isEmpty || attempt == 4 { break }
                fixture.conditioner.setState(.wifi, .up, pathUpdate: .withheld)
                _ = try await manager.wait(for: token, seconds: 120) { $0 == .downloading }
            }
            #expect(!atStall.parts.isEmpty, "a segment was half stored when WiFi went silent: \(listing)")
            // The stalled requests are logged only when the origin notices their end, which
            // may be after WiFi is back: judge by when requests started.
            let resumed = fixture.server.nowNanoseconds

            fixture.conditioner.setState(.wifi, .up, pathUpdate: .withheld)
            #expect(try await manager.wait(for: token, seconds: 120) { $0 == .downloaded || $0 == .failed } == .downloaded)
            #expect(!events.states.contains(.failed), "\(events.states)")
            // Each half-stored segment resumed where it stopped (Range), none stored was fetched again.
            let later = fixture.server.requests(startedAfter: resumed)
            atStall.expectResumed(by: later, prefix: "/videos/clear/400k/seg")
            #expect(later.contains { $0.range != nil && $0.status == 206 }, "\(later.map { "\($0.path) \($0.range ?? "-")" })")
            let manifest = try fixture.server.store.hashManifest(videoIDs: ["clear"])
            for index in 0..<21 {
                let hash = try Self.sha256(package + String(format: "/video/seg%05d.ts", index))
                #expect(hash == manifest.entries["/videos/clear/400k/seg\(index).ts"]?.sha256, "segment \(index)")
            }
            await manager.shutdown()
            listener.cancel()
        }
    }
}
