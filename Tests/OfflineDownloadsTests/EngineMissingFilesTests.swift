import BenchCore
import Crypto
import FixtureOrigin
import Foundation
import OfflineDownloads
import Testing

/// Package files removed behind the engine's back (a cleaner, the user, the OS):
/// a complete package missing files is not reported playable, and a download in flight
/// that lost stored segments fetches them again when it goes on.
@Suite(.timeLimit(.minutes(5))) struct EngineMissingFilesTests {
    static func sha256(_ path: String) throws -> String {
        SHA256.hash(data: try Data(contentsOf: URL(fileURLWithPath: path))).map { String(format: "%02x", $0) }.joined()
    }

    static func segment(_ index: Int) -> String { String(format: "video/seg%05d.ts", index) }

    @Test func aCompletePackageMissingFilesIsNotPlayable() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            let video = try await fixture.video("clear")
            let token = try await manager.requestDownload(video: video)
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            #expect(await manager.offlineVideo(token)?.playableOffline == true)
            let package = fixture.package(token)

            try FileManager.default.removeItem(atPath: package + "/" + Self.segment(3))
            try FileManager.default.removeItem(atPath: package + "/" + Self.segment(7))
            let offline = try #require(await manager.offlineVideo(token))
            #expect(!offline.playableOffline)
            let reason = offline.unplayableReason ?? ""
            #expect(reason.hasPrefix("package incomplete: 2 files missing"), "\(reason)")
            #expect(reason.contains(Self.segment(3)) && reason.contains(Self.segment(7)), "\(reason)")
            // A player is sent to the origin instead; the download stays downloaded.
            #expect(await manager.sourceURL(for: video) == video.masterURL)
            #expect(await manager.status(token)?.state == .downloaded)

            // A file cut short counts as missing too, and so does a local playlist.
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: package + "/" + Self.segment(4)))
            try handle.truncate(atOffset: 10)
            try handle.close()
            try FileManager.default.removeItem(atPath: package + "/video.m3u8")
            let worse = try #require(await manager.offlineVideo(token)?.unplayableReason)
            #expect(worse.hasPrefix("package incomplete: 4 files missing"), "\(worse)")
            await manager.shutdown()
        }
    }

    enum Interruption: String, CaseIterable, CustomTestStringConvertible {
        case paused
        case offline
        var testDescription: String { rawValue }
    }

    /// The start-up and transfer reconciliation at work on a download that was not
    /// restarted: each run of the transfer checks the disk first.
    @Test(arguments: Interruption.allCases)
    func segmentsRemovedWhileADownloadWaitsAreFetchedAgain(_ interruption: Interruption) async throws {
        // Segment 10 is held 30 s the first time: the download is in flight, with the
        // segments around it stored, until the test interrupts it.
        try await withEngine({ configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/clear/400k/seg10.ts", fault: .addedTimeToFirstByte(.seconds(30)), count: 1)
            ])
        }) { fixture in
            let manager = try await fixture.makeManager(stallTimeout: .seconds(60))
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            try await manager.wait(for: token, progress: 0.5)
            switch interruption {
            case .paused:
                try await manager.pause(token)
                #expect(try await manager.wait(for: token) { $0 == .suspended(.user) } == .suspended(.user))
            case .offline:
                fixture.showPath([])
                #expect(try await manager.wait(for: token) { $0 == .suspended(.network) } == .suspended(.network))
            }
            let package = fixture.package(token)
            #expect(try await waitUntilClosed(under: package), "the stopped transfer still writes")
            let stored = StoppedPackage(videoDirectory: package + "/video").stored
            #expect(stored.isSuperset(of: [0, 1, 2]), "\(stored.sorted())")
            for index in [0, 2] { try FileManager.default.removeItem(atPath: package + "/" + Self.segment(index)) }

            let resumed = fixture.server.nowNanoseconds
            switch interruption {
            case .paused: try await manager.resume(token)
            case .offline: fixture.showPath([.wifi])
            }
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            // The two removed segments were fetched again, whole; nothing else stored was.
            let later = fixture.server.requests(startedAfter: resumed).map(\.path).filter { $0.hasSuffix(".ts") }
            for index in [0, 2] { #expect(later.contains("/videos/clear/400k/seg\(index).ts"), "\(later)") }
            for index in stored.subtracting([0, 2]) { #expect(!later.contains("/videos/clear/400k/seg\(index).ts")) }
            let manifest = try fixture.server.store.hashManifest(videoIDs: ["clear"])
            for index in 0..<21 {
                #expect(try Self.sha256(package + "/" + Self.segment(index)) == manifest.entries["/videos/clear/400k/seg\(index).ts"]?.sha256)
            }
            #expect(await manager.offlineVideo(token)?.playableOffline == true)
            // What the status counts is what is on disk: the two fetched again once, not twice.
            let onDisk = try (0..<21).reduce(Int64(0)) { sum, index in
                sum + ((try FileManager.default.attributesOfItem(atPath: package + "/" + Self.segment(index))[.size] as? Int64) ?? 0)
            }
            #expect(await manager.status(token)?.bytesDownloaded == onDisk)
            await manager.shutdown()
        }
    }
}
