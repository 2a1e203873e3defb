import BenchCore
import FixtureOrigin
import Foundation
import HLSPlaylist
import OfflineDownloads
import Synchronization
import TestSupport
import Testing

/// What the engine leaves on disk and tells the app: renditions, progress, licenses in
/// the background, and a package a real player reads.
@Suite(.timeLimit(.minutes(5))) struct DownloadManagerPackageTests {
    final class Events: Sendable {
        let all = Mutex<[EngineEvent]>([])
    }

    @Test func alternateAudioAndSubtitlesAreStoredWithMonotonicProgress() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            let events = Events()
            let listener = Task { for await event in manager.events { events.all.withLock { $0.append(event) } } }
            let token = try await manager.requestDownload(
                video: try await fixture.video("multilang"),
                mediaSelections: MediaSelections(audioLanguages: ["fr"], subtitleLanguages: ["de"]))
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            let offline = try #require(await manager.offlineVideo(token))
            let package = offline.masterPlaylist.deletingLastPathComponent().path
            for directory in ["video", "audio_fr", "subs_de"] {
                let files = (try? FileManager.default.contentsOfDirectory(atPath: package + "/" + directory)) ?? []
                #expect(files.count == 11, "\(directory): \(files.count) files")  // 64 s in 6 s segments
            }
            #expect(!FileManager.default.fileExists(atPath: package + "/audio_en"))
            #expect(offline.subtitles.keys.sorted() == ["de"])
            let master = try String(contentsOf: offline.masterPlaylist, encoding: .utf8)
            #expect(master.contains("audio_fr.m3u8") && master.contains("subs_de.m3u8") && !master.contains("http"))
            await manager.shutdown()
            listener.cancel()
            // Progress per selection only grows, and ends at 1 for each.
            var last: [String: Double] = [:]
            for case .progress(_, let selection, let fraction) in events.all.withLock({ $0 }) {
                #expect(fraction >= last[selection, default: 0], "\(selection) went back to \(fraction)")
                last[selection] = fraction
            }
            #expect(last == ["video": 1, "audio_fr": 1, "subs_de": 1])
        }
    }

    @Test func noLicenseExchangeInTheBackgroundAndTheDownloadWaitsForTheForeground() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            await manager.setForeground(false)
            let token = try await manager.requestDownload(video: try await fixture.video("protected"))
            #expect(try await manager.wait(for: token) { $0 == .suspended(.awaitingForeground) } == .suspended(.awaitingForeground))
            #expect(!fixture.server.requestLog.contains { $0.path.hasPrefix("/license") })
            #expect(!fixture.server.requestLog.contains { $0.path.hasSuffix(".ts") })
            await manager.setForeground(true)
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            await manager.shutdown()
        }
    }

    @Test func prepareForBackgroundReturnsWithEveryLicenseStored() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager(concurrent: 1)
            let video = try await fixture.video("protected")
            let tokens = [
                try await manager.requestDownload(video: video),
                try await manager.requestDownload(video: video),
            ]
            let unfinished = await manager.prepareForBackground()
            #expect(unfinished.isEmpty, "\(unfinished)")
            for token in tokens {
                #expect(await manager.licenseExpiration(token) == .distantFuture, "\(token) has no license")
            }
            await manager.setForeground(false)
            fixture.server.licenseServer.setAppInBackground(true)
            for token in tokens {
                #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            }
            await manager.shutdown()
        }
    }

    @Test func prepareForBackgroundSaysWhichLicensesItCouldNotGet() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager(concurrent: 1)
            // The server already refuses: the harness told it the app is in the background.
            fixture.server.licenseServer.setAppInBackground(true)
            let video = try await fixture.video("protected")
            let first = try await manager.requestDownload(video: video)
            let second = try await manager.requestDownload(video: video)
            let unfinished = await manager.prepareForBackground()
            #expect(Set(unfinished.keys) == [first, second])
            #expect(unfinished.values.allSatisfy { $0.contains("background") }, "\(unfinished)")
            let expirations = [await manager.licenseExpiration(first), await manager.licenseExpiration(second)]
            #expect(expirations == [nil, nil])
            await manager.shutdown()
        }
    }

    @Test func aDownloadInProgressOpensWithWhatIsAlreadyStored() async throws {
        // Segment 5 is held by the origin; the other fetch slot goes on with 6, 7, ... so
        // the disk soon holds 0-4 and 6-20: the playable prefix is 0-4.
        try await withEngine(sizeScale: 0.2, { configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/clear/400k/seg5.ts", fault: .addedTimeToFirstByte(.seconds(30)))
            ])
        }) { fixture in
            let manager = try await fixture.makeManager()
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            try await manager.wait(for: token, progress: 0.9)
            #expect(await manager.status(token)?.state == .downloading)
            let offline = try #require(await manager.offlineVideo(token))
            #expect(!offline.playableOffline)
            #expect(offline.unplayableReason?.contains("not complete") == true, "\(offline.unplayableReason ?? "nil")")
            // What opens for playback lists the stored prefix only, and every file it names is there.
            let package = offline.masterPlaylist.deletingLastPathComponent()
            let master = try MasterPlaylist.parse(try String(contentsOf: offline.masterPlaylist, encoding: .utf8))
            let variant = try #require(master.variants.first)
            let media = try MediaPlaylist.parse(
                try String(contentsOf: package.appendingPathComponent(variant.uri), encoding: .utf8))
            #expect(media.segments.map(\.uri) == (0..<5).map { String(format: "video/seg%05d.ts", $0) })
            #expect(media.endList)
            for segment in media.segments {
                #expect(FileManager.default.fileExists(atPath: package.appendingPathComponent(segment.uri).path), "\(segment.uri)")
            }
            #expect(FileManager.default.fileExists(atPath: package.path + "/video/seg00006.ts"), "stored after the gap, not listed")
            try await manager.cancel(token)
            await manager.shutdown()
        }
    }

    @Test func theCompletePackageListsEverySegmentAgain() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            // Asked for while in progress (a partial package), then complete: the complete
            // playlists must win.
            await eventually("the download ending", within: 120) {
                _ = await manager.offlineVideo(token)
                let state = await manager.status(token)?.state
                return state == .downloaded || state == .failed
            }
            #expect(await manager.status(token)?.state == .downloaded)
            let offline = try #require(await manager.offlineVideo(token))
            #expect(offline.playableOffline)
            let media = try MediaPlaylist.parse(try String(
                contentsOf: offline.masterPlaylist.deletingLastPathComponent().appendingPathComponent("video.m3u8"), encoding: .utf8))
            #expect(media.segments.count == 21)
            await manager.shutdown()
        }
    }

    @Test func cancelRemovesTheLicenseAndTheFiles() async throws {
        try await withEngine(sizeScale: 0.2, { configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/protected/400k/seg5.ts", fault: .addedTimeToFirstByte(.seconds(30)))
            ])
        }) { fixture in
            let manager = try await fixture.makeManager()
            let events = Events()
            let listener = Task { for await event in manager.events { events.all.withLock { $0.append(event) } } }
            let token = try await manager.requestDownload(video: try await fixture.video("protected"))
            await eventually("the license stored") { await manager.licenseExpiration(token) != nil }
            try await manager.cancel(token)
            // cancel() returns once the files are gone and the download is forgotten.
            let status = await manager.status(token)
            let expiration = await manager.licenseExpiration(token)
            #expect(status == nil && expiration == nil)
            #expect(!FileManager.default.fileExists(atPath: fixture.scratch.path + "/packages/\(token)"))
            await manager.shutdown()
            listener.cancel()
            // Told in the order it happened: the file removal that ends the cancel must not
            // overtake the change into canceling.
            let changes = events.all.withLock { all in
                all.compactMap { event -> String? in
                    guard case let .stateChanged(_, from, to) = event else { return nil }
                    return "\(from)→\(to)"
                }
            }
            #expect(changes.suffix(2) == ["downloading→canceling", "canceling→notDownloaded"], "\(changes)")
        }
    }
}
