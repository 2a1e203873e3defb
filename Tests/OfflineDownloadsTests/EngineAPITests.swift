import BenchCore
import FixtureOrigin
import Foundation
import OfflineDownloads
import Synchronization
import TestSupport
import Testing

/// The smaller promises of the engine's API, end to end through the conditioner.
@Suite(.timeLimit(.minutes(5))) struct EngineAPITests {
    final class Events: Sendable {
        let all = Mutex<[EngineEvent]>([])
    }

    @Test func theSourceURLIsLocalOnlyOnceTheCopyIsPlayable() async throws {
        try await withEngine(sizeScale: 0.2, { configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/clear/400k/*.ts", fault: .addedTimeToFirstByte(.milliseconds(20)))
            ])
        }) { fixture in
            let manager = try await fixture.makeManager()
            let video = try await fixture.video("clear")
            let remote = try #require(video.masterURL)
            #expect(await manager.sourceURL(for: video) == remote, "nothing downloaded: the remote URL")
            let token = try await manager.requestDownload(video: video)
            try await manager.wait(for: token, progress: 0.1)
            #expect(await manager.sourceURL(for: video) == remote, "in progress: not playable, the remote URL")
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            let local = try #require(await manager.sourceURL(for: video))
            let master = await manager.offlineVideo(token)?.masterPlaylist
            #expect(local.isFileURL && local == master)
            #expect(FileManager.default.fileExists(atPath: local.path))
            await manager.shutdown()
        }
    }

    @Test func aDisplayNameIsMadeSafeForAFileName() async throws {
        #expect(DownloadParameters.fileSafe("../../etc/passwd") == "_.._etc_passwd")
        #expect(DownloadParameters.fileSafe("Mon film: épisode 1/2") == "Mon film_ épisode 1_2")
        #expect(DownloadParameters.fileSafe("...") == "download")
        #expect(DownloadParameters.fileSafe("") == "download")
        #expect(DownloadParameters.fileSafe(String(repeating: "a", count: 200)).count == 80)
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            let token = try await manager.requestDownload(
                video: try await fixture.video("clear"), parameters: DownloadParameters(displayName: "a/b:c\u{0}d"))
            #expect(await manager.offlineVideo(token)?.displayName == "a_b_c_d")
            // Without one, the catalog's name is used.
            let named = try await manager.requestDownload(video: try await fixture.video("clear"))
            #expect(await manager.offlineVideo(named)?.displayName == "Clear Sample")
            await manager.shutdown()
        }
    }

    @Test func finishingTellsThePackageAndStampsTheStatus() async throws {
        try await withEngine { fixture in
            // A clock that moves one second per reading, so every stamp is distinct and ordered.
            let base = Date(timeIntervalSince1970: 1_700_000_000)
            let readings = Mutex(0)
            let manager = try await fixture.makeManager(now: {
                base.addingTimeInterval(TimeInterval(readings.withLock { $0 += 1; return $0 }))
            })
            let events = Events()
            let listener = Task { for await event in manager.events { events.all.withLock { $0.append(event) } } }
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            let status = try #require(await manager.status(token))
            let started = try #require(status.startedAt)
            let finished = try #require(status.finishedAt)
            #expect(status.requestedAt < started && started < finished)
            #expect(status.requestedAt > base)
            // Bytes: what is on disk, and the progress is whole.
            let package = fixture.package(token)
            let onDisk = try FileManager.default.contentsOfDirectory(atPath: package + "/video").reduce(Int64(0)) { sum, name in
                sum + ((try FileManager.default.attributesOfItem(atPath: package + "/video/" + name)[.size] as? Int64) ?? 0)
            }
            #expect(status.bytesDownloaded == onDisk && onDisk > 0)
            #expect(status.bytesExpected != nil && status.progress == 1)
            // `finished` names the package directory, which holds the local master playlist.
            await eventually("the finished event") {
                events.all.withLock { $0.contains { if case .finished = $0 { true } else { false } } }
            }
            let told = events.all.withLock { $0.compactMap { if case .finished(token, let url) = $0 { url } else { nil } } }
            #expect(told.count == 1)
            #expect(told.first?.standardizedFileURL.path == URL(fileURLWithPath: package).standardizedFileURL.path)
            #expect(FileManager.default.fileExists(atPath: package + "/master.m3u8"))
            await manager.shutdown()
            listener.cancel()
        }
    }

    @Test func aMasterPlaylistThatIsNotFoundFailsAtOnce() async throws {
        try await withEngine({ configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/clear/master.m3u8", fault: .status(404, retryAfter: nil))
            ])
        }) { fixture in
            let manager = try await fixture.makeManager()
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            #expect(try await manager.wait(for: token) { $0 == .failed || $0 == .downloaded } == .failed)
            let failure = await manager.status(token)?.failure
            #expect(failure == .httpStatus(404))
            #expect(failure?.description.contains("delete the download") == true)
            // The property: no retry within a window longer than the retry backoff's cap (400 ms).
            try await watchWindow(.seconds(1))
            #expect(fixture.server.requestLog.filter { $0.path == "/videos/clear/master.m3u8" }.count == 1, "not retried")
            await manager.shutdown()
        }
    }

    @Test(arguments: [(1_000_000, "1200k"), (1_200_000, "1200k"), (1_200_001, "3000k"), (50_000_000, "6000k"), (nil, "400k")])
    func aRequestedBitrateTakesTheFirstVariantAtOrAboveIt(bitrate: Int?, variant: String) async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            let token = try await manager.requestDownload(
                video: try await fixture.video("clear"), parameters: DownloadParameters(requestedBitrate: bitrate))
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            let variants = Set(fixture.server.requestLog.filter { $0.path.hasSuffix(".ts") }.map { $0.path.split(separator: "/")[2] })
            #expect(variants == [Substring(variant)])
            await manager.shutdown()
        }
    }
}
