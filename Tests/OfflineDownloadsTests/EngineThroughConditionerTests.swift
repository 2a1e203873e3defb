import BenchCore
import Crypto
import FixtureOrigin
import Foundation
import LinkConditioner
import OfflineDownloads
import Synchronization
import TestSupport
import Testing

/// The engine through the real libuv link conditioner in front of the real origin:
/// each way an interface can go down suspends the download (never fails it), and it
/// resumes by itself and completes byte for byte when the interface returns.
@Suite(.serialized, .timeLimit(.minutes(5))) struct EngineThroughConditionerTests {
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
            await eventually("the conditioner's path showing WiFi alone (it shows \(fixture.path.currentPath))") {
                fixture.path.currentPath.interfaces.map(\.kind) == [.wifi]
            }

            let manager = try await fixture.makeManager(stallTimeout: .milliseconds(800))
            let log = EventLog()
            let listener = Task { for await event in manager.events { log.events.withLock { $0.append(event) } } }
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            try await manager.wait(for: token, progress: 0.2)
            conditioner.setState(.wifi, .down(mode))
            let suspended = try await manager.wait(for: token, seconds: 120) { $0 == .suspended(.network) }
            #expect(suspended == .suspended(.network), "\(log.states) path \(fixture.path.currentPath)")
            conditioner.setState(.wifi, .up)
            let final = try await manager.wait(for: token, seconds: 120) { $0 == .downloaded || $0 == .failed }
            if final != .downloaded {
                // What a stuck download looks like from every side, to find out why.
                Issue.record("not downloaded after WiFi returned: \(await Self.diagnosis(token, manager, fixture, log))")
                await manager.shutdown()
                listener.cancel()
                return
            }
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

    /// The engine's status and events, the path it was shown, the conditioner's state
    /// and the origin's last requests: what a download that did not finish left behind.
    static func diagnosis(_ token: DownloadToken, _ manager: DownloadManager, _ fixture: EngineFixture, _ log: EventLog) async
        -> String
    {
        let status = await manager.status(token).map { "\($0.state), progress \($0.progress)" } ?? "unknown"
        let events = log.events.withLock { $0 }.suffix(40).map { "  \($0)" }.joined(separator: "\n")
        let origin = fixture.server.requestLog.suffix(30).map {
            "  \($0.startedAtNanoseconds / 1_000_000) ms \($0.interface ?? "direct") \($0.path) \($0.range ?? "") "
                + "\($0.status) \($0.bytesSent) B\($0.completed ? "" : " (cut)")"
        }.joined(separator: "\n")
        let snapshot = await fixture.conditioner.snapshot()
        let interfaces = snapshot.interfaces.map { "\($0.kind) \($0.state)" }.joined(separator: ", ")
        // The conditioner's own account (progress reports left out): listeners, accepts, resets.
        let conditioner = fixture.conditionerEvents.all.filter {
            if case .bytesForwarded = $0.kind { false } else if case .packetLost = $0.kind { false } else { true }
        }.suffix(40).map { "  \(Double($0.time) / 1e9) s \($0.kind)" }.joined(separator: "\n")
        return "status \(status); path shown \(fixture.path.currentPath); conditioner \(interfaces), "
            + "\(snapshot.connections.count) connections, published \(snapshot.publishedPath)\nengine events:\n\(events)"
            + "\norigin requests:\n\(origin)\nconditioner events:\n\(conditioner)"
    }

    /// The path the OS gives the engine changes without an update being published (a
    /// late or withheld update, DESIGN.md §2) right when a retry starts a transfer: the
    /// machine chose WiFi from the path it was fed, and WiFi is gone from the path now.
    /// The transfer used to not start, silently, and the download stayed `downloading`
    /// with nothing running until a path update that never came (the root cause of the
    /// download stuck after a reset outage in the full suite, where the path updates were
    /// late because the test's forwarding task was starved). Now it stalls and retries.
    @Test func aTransferThatCannotStartOnTheCurrentPathRetriesInsteadOfHanging() async throws {
        let wifi = InterfaceLink(downlink: LinkDirectionParameters(rate: .constant(bitsPerSecond: 4_000_000)))
        try await withEngine(sizeScale: 0.1, wifi: wifi) { fixture in
            let path = UnpublishedPath(NetworkPath(interfaces: [fixture.wifi]))
            let manager = try await fixture.makeManager(stallTimeout: .milliseconds(800), path: path)
            let log = EventLog()
            let listener = Task { for await event in manager.events { log.events.withLock { $0.append(event) } } }
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            try await manager.wait(for: token, progress: 0.2, seconds: 60)
            // WiFi goes from the path the engine reads, with no update, then the link
            // resets: the transfer fails, and each retry finds WiFi gone.
            path.set(NetworkPath(interfaces: []))
            fixture.conditioner.setState(.wifi, .down(.reset))
            #expect(try await manager.wait(for: token, seconds: 60) { $0 == .suspended(.network) } == .suspended(.network))
            // Let a few retries find the path without WiFi (each one is a state change).
            await eventually("three retries finding the path without WiFi (states: \(log.states))") {
                log.states.filter { $0 == .suspended(.network) }.count >= 3
            }
            // WiFi comes back, again with no update: the next retry must find it.
            fixture.conditioner.setState(.wifi, .up)
            path.set(NetworkPath(interfaces: [fixture.wifi]))
            let final = try await manager.wait(for: token, seconds: 120) { $0 == .downloaded || $0 == .failed }
            #expect(final == .downloaded, "\(log.states)")
            await manager.shutdown()
            listener.cancel()
        }
    }
}

/// A path provider whose path changes are never published: the engine sees a change only
/// when it reads `currentPath` (what a withheld path update leaves it with).
final class UnpublishedPath: NetworkPathProvider {
    private let path: Mutex<NetworkPath>

    init(_ path: NetworkPath) {
        self.path = Mutex(path)
    }

    var currentPath: NetworkPath { path.withLock { $0 } }

    func set(_ newPath: NetworkPath) {
        path.withLock { $0 = newPath }
    }

    func updates() -> AsyncStream<NetworkPath> {
        AsyncStream { _ in }
    }
}
