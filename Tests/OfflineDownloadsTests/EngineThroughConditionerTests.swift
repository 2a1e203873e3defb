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
        try await withEngine(sizeScale: 0.1) { fixture in
            // WiFi at 4 Mbit/s, so the 400k variant (~625 kB here) takes over a second.
            let wifi = InterfaceSetup(
                state: .up, link: InterfaceLink(downlink: LinkDirectionParameters(rate: .constant(bitsPerSecond: 4_000_000))))
            // Cellular is down throughout: when WiFi goes, no interface is left (with cellular
            // up the download would wait in suspended(cellularNotAllowed); see the policy tests).
            let cellular = InterfaceSetup(state: .down(.refuse), link: InterfaceLink(isExpensive: true))
            let profile = Profile(name: "engine", seed: 3, duration: .seconds(120), initial: [.wifi: wifi, .cellular: cellular])
            let conditioner = try LinkConditioner.start(
                configuration: ConditionerConfiguration(
                    upstream: SocketAddress(host: "127.0.0.1", port: UInt16(fixture.server.port)),
                    // Addresses of their own: the conditioner's tests count the sockets on .2/.3.
                    listeners: [.wifi: SocketAddress(host: "127.0.0.12", port: 0), .cellular: SocketAddress(host: "127.0.0.13", port: 0)],
                    profile: profile),
                sink: EventCollector())
            defer { _ = conditioner.stop() }
            let endpoint = try #require(conditioner.endpoints[.wifi]).description
            fixture.path.update(NetworkPath(interfaces: [
                PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: endpoint)
            ]))
            let forward = Task { for await path in conditioner.pathUpdates { fixture.path.update(path) } }
            defer { forward.cancel() }

            let manager = try await fixture.makeManager(stallTimeout: .milliseconds(800))
            let log = EventLog()
            let listener = Task { for await event in manager.events { log.events.withLock { $0.append(event) } } }
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            let deadline = Date().addingTimeInterval(20)
            while await (manager.status(token)?.progress ?? 0) < 0.2, Date() < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            conditioner.setState(.wifi, .down(mode))
            let suspended = try await manager.wait(for: token, seconds: 15) { $0 == .suspended(.network) }
            #expect(suspended == .suspended(.network), "\(log.states) path \(fixture.path.currentPath)")
            conditioner.setState(.wifi, .up)
            #expect(try await manager.wait(for: token, seconds: 30) { $0 == .downloaded || $0 == .failed } == .downloaded)
            #expect(!log.states.contains(.failed), "\(log.states)")

            let manifest = try fixture.server.store.hashManifest(videoIDs: ["clear"])
            let package = try #require(await manager.offlineVideo(token)).masterPlaylist.deletingLastPathComponent().path
            for index in 0..<21 {
                let data = try Data(contentsOf: URL(fileURLWithPath: package + String(format: "/video/seg%05d.ts", index)))
                let hash = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
                #expect(hash == manifest.entries["/videos/clear/400k/seg\(index).ts"]?.sha256, "segment \(index)")
            }
            await manager.shutdown()
            listener.cancel()
        }
    }
}
