import BenchCore
import Crypto
import FixtureOrigin
import Foundation
import LinkConditioner
import OfflineDownloads
import Synchronization
import Testing

/// The engine through the real libuv link conditioner in front of the real origin:
/// each way an interface can go down suspends the download (never fails it), and it
/// resumes by itself and completes byte for byte when the interface returns.
@Suite(.serialized) struct EngineThroughConditionerTests {
    /// Everything the engine said, for assertions after the fact.
    final class EventLog: Sendable {
        let events = Mutex<[EngineEvent]>([])
        var states: [DownloadState] {
            events.withLock { $0.compactMap { if case .stateChanged(_, _, let to) = $0 { to } else { nil } } }
        }
    }

    @Test(arguments: [DownMode.reset, .refuse, .blackhole])
    func suspendsOnEachDownModeAndResumes(mode: DownMode) async throws {
        // WiFi at 4 Mbit/s, so the 400k variant (~625 kB here) takes over a second.
        let wifi = InterfaceLink(downlink: LinkDirectionParameters(rate: .constant(bitsPerSecond: 4_000_000)))
        try await withEngine(sizeScale: 0.1, wifi: wifi) { fixture in
            // Cellular is down throughout: when WiFi goes, no interface is left (with cellular
            // up the download would wait in suspended(cellularNotAllowed); see the policy tests).
            let conditioner = fixture.conditioner
            conditioner.setState(.cellular, .down(.refuse))
            let forward = Task { for await path in conditioner.pathUpdates { fixture.path.update(path) } }
            defer { forward.cancel() }
            for _ in 0..<500 where fixture.path.currentPath.interface(.cellular) != nil || fixture.path.currentPath.interface(.wifi) == nil {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(fixture.path.currentPath.interfaces.map(\.kind) == [.wifi], "the conditioner's path: \(fixture.path.currentPath)")

            let manager = try await fixture.makeManager(stallTimeout: .milliseconds(800))
            let log = EventLog()
            let listener = Task { for await event in manager.events { log.events.withLock { $0.append(event) } } }
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            let deadline = Date().addingTimeInterval(20)
            while await (manager.status(token)?.progress ?? 0) < 0.2, Date() < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            conditioner.setState(.wifi, .down(mode))
            let suspended = try await manager.wait(for: token, seconds: 120) { $0 == .suspended(.network) }
            #expect(suspended == .suspended(.network), "\(log.states) path \(fixture.path.currentPath)")
            conditioner.setState(.wifi, .up)
            #expect(try await manager.wait(for: token, seconds: 120) { $0 == .downloaded || $0 == .failed } == .downloaded)
            #expect(!log.states.contains(.failed), "\(log.states)")

            let manifest = try fixture.server.store.hashManifest(videoIDs: ["clear"])
            let package = try #require(await manager.offlineVideo(token)).masterPlaylist.deletingLastPathComponent().path
            for index in 0..<21 {
                let data = try Data(contentsOf: URL(fileURLWithPath: package + String(format: "/video/seg%05d.ts", index)))
                let hash = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
                #expect(hash == manifest.entries["/videos/clear/400k/seg\(index).ts"]?.sha256, "segment \(index)")
            }
            #expect(fixture.bytesSent(through: .cellular) == 0)
            await manager.shutdown()
            listener.cancel()
        }
    }
}
