import BenchCore
import Crypto
import FixtureOrigin
import Foundation
import OfflineDownloads
import TestSupport
import Testing

/// The engine end to end against the real origin over real sockets.
@Suite(.timeLimit(.minutes(5))) struct DownloadManagerTests {
    private func sha256(_ path: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    @Test func downloadsAClearVideoByteForByte() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            let video = try await fixture.video("clear")
            let token = try await manager.requestDownload(video: video)
            let state = try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed }
            let status = await manager.status(token)
            #expect(state == .downloaded, "\(String(describing: status))")
            let offline = try #require(await manager.offlineVideo(token))
            #expect(offline.playableOffline)
            let manifest = try fixture.server.store.hashManifest(videoIDs: ["clear"])
            // The lowest variant with video (400k), every segment exactly as served.
            let local = offline.masterPlaylist.deletingLastPathComponent().path
            let segments = try FileManager.default.contentsOfDirectory(atPath: local + "/video").filter { $0.hasSuffix(".ts") }
            #expect(segments.count == 21)
            for index in 0..<21 {
                let entry = try #require(manifest.entries["/videos/clear/400k/seg\(index).ts"])
                #expect(try sha256(local + "/video/" + String(format: "seg%05d.ts", index)) == entry.sha256)
            }
            #expect(await manager.licenseExpiration(token) == .distantFuture)
            await manager.shutdown()
        }
    }

    @Test func refusesAVideoThatIsNotOfflineEnabled() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            let video = try await fixture.video("online-only")
            await #expect(throws: EngineError.notOfflineEnabled(videoID: "online-only")) {
                try await manager.requestDownload(video: video)
            }
            #expect(await manager.tokens.isEmpty)
            await manager.shutdown()
        }
    }

    @Test func acquiresTheLicenseBeforeTheFirstEncryptedSegment() async throws {
        try await withEngine { fixture in
            let manager = try await fixture.makeManager()
            let video = try await fixture.video("protected")
            let token = try await manager.requestDownload(
                video: video, parameters: DownloadParameters(licenseTerms: LicenseTerms(kind: .rental, rentalDurationSeconds: 3600)))
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            let log = fixture.server.requestLog
            let license = try #require(log.firstIndex { $0.path == "/license" && $0.status == 200 })
            let firstSegment = try #require(log.firstIndex { $0.path.hasSuffix(".ts") })
            #expect(license < firstSegment)
            let expiration = try #require(await manager.licenseExpiration(token))
            #expect(expiration > Date() && expiration < Date().addingTimeInterval(3700))
            #expect(await manager.status(token)?.licenseRequestedAt != nil)
            await manager.shutdown()
        }
    }

    @Test func suspendsWithoutANetworkAndResumesWhenItReturns() async throws {
        try await withEngine(sizeScale: 0.05) { fixture in
            let manager = try await fixture.makeManager()
            fixture.path.update(NetworkPath(interfaces: []))
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            #expect(try await manager.wait(for: token) { $0 == .suspended(.network) } == .suspended(.network))
            fixture.path.update(NetworkPath(interfaces: [fixture.wifi]))
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            await manager.shutdown()
        }
    }

    /// `applyCurrentPath` returns once every download has settled on the path shown
    /// now: an app that answers a path change after it (the agent's `setPath`) never
    /// decides anything on the path before (a retry due said `downloading` for a
    /// WiFi-only download right after the app had answered a path with only cellular).
    @Test func applyingThePathSettlesEveryDownloadOnItBeforeItReturns() async throws {
        let wifi = InterfaceLink(downlink: LinkDirectionParameters(rate: .constant(bitsPerSecond: 2_000_000)))
        try await withEngine(sizeScale: 0.2, wifi: wifi) { fixture in
            let manager = try await fixture.makeManager()
            let token = try await manager.requestDownload(
                video: try await fixture.video("clear"), parameters: DownloadParameters(allowsCellular: false))
            try await manager.wait(for: token, progress: 0.05)
            for round in 1...5 {
                fixture.showPath([.cellular])
                await manager.applyCurrentPath()
                #expect(await manager.status(token)?.state == .suspended(.cellularNotAllowed), "round \(round)")
                fixture.showPath([.wifi])
                await manager.applyCurrentPath()
                #expect(await manager.status(token)?.state == .downloading, "round \(round)")
            }
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            await manager.shutdown()
        }
    }

    /// Bytes on disk under the `video` directory of `package` (`.part` files included).
    private func bytesOnDisk(_ package: String) -> Int64 {
        let directory = package + "/video"
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).reduce(0) { sum, name in
            sum + ((try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as? Int64) ?? 0)
        }
    }

    @Test func pauseStopsARunningTransferAndResumeFinishesIt() async throws {
        // 2 Mbit/s WiFi: the ~1.3 MB download takes several seconds, so pause finds it running.
        let wifi = InterfaceLink(downlink: LinkDirectionParameters(rate: .constant(bitsPerSecond: 2_000_000)))
        try await withEngine(sizeScale: 0.2, wifi: wifi) { fixture in
            let manager = try await fixture.makeManager()
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            try await manager.wait(for: token, progress: 0.15)
            try await manager.pause(token)
            #expect(await manager.status(token)?.state == .suspended(.user))
            // Paused: once the stopped transfer has closed its `.part` files, no byte moves,
            // on the wire or to the disk. Requests are judged from a mark no request sent
            // before the pause can pass (one may still be on its way through the conditioner).
            let package = fixture.package(token)
            #expect(try await waitUntilClosed(under: package), "still open after the pause: \(openFiles(under: package))")
            let stored = bytesOnDisk(package)
            let paused = try await fixture.markAfterTheEnginesRequests()
            try await watchWindow(.seconds(1))  // the property: a second paused, in which nothing may move
            #expect(bytesOnDisk(package) == stored)
            #expect(openFiles(under: package).isEmpty, "a file opened while paused: \(openFiles(under: package))")
            let asked = fixture.server.requests(startedAfter: paused)
            #expect(asked.isEmpty, "asked for while paused: \(asked.map(\.path))")
            #expect(await manager.status(token)?.state == .suspended(.user))
            #expect(await (manager.status(token)?.progress ?? 1) < 1)
            try await manager.resume(token)
            #expect(try await manager.wait(for: token, seconds: 120) { $0 == .downloaded || $0 == .failed } == .downloaded)
            let manifest = try fixture.server.store.hashManifest(videoIDs: ["clear"])
            for index in 0..<21 {
                let entry = try #require(manifest.entries["/videos/clear/400k/seg\(index).ts"])
                #expect(try sha256(package + String(format: "/video/seg%05d.ts", index)) == entry.sha256, "segment \(index)")
            }
            await manager.shutdown()
        }
    }

    @Test func cancelAndDeleteLeaveNothingBehind() async throws {
        try await withEngine(sizeScale: 0.05) { fixture in
            let manager = try await fixture.makeManager()
            let video = try await fixture.video("clear")
            let token = try await manager.requestDownload(video: video)
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            let package = try #require(await manager.offlineVideo(token)).masterPlaylist.deletingLastPathComponent().path
            try await manager.delete(token)
            #expect(await manager.status(token) == nil)
            #expect(!FileManager.default.fileExists(atPath: package))
            let second = try await manager.requestDownload(video: video)
            try await manager.cancel(second)
            await eventually("the canceled download \(second) being forgotten") { await manager.status(second) == nil }
            #expect(!FileManager.default.fileExists(atPath: fixture.scratch.path + "/packages/\(second)"))
            // Nothing left: no package directory, no row in the index.
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: fixture.scratch.path + "/packages")) ?? []).isEmpty)
            await manager.shutdown()
            let relaunched = try await fixture.makeManager()
            #expect(await relaunched.tokens.isEmpty)
            await relaunched.shutdown()
        }
    }

    @Test func aRelaunchFinishesTheDownloadWithoutFetchingStoredSegmentsAgain() async throws {
        // Each segment waits 30 ms for its first byte, and 10-20 a minute, so the download
        // is caught midway however loaded the machine is.
        try await withEngine(sizeScale: 0.2, { configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/clear/400k/seg1?.ts", fault: .addedTimeToFirstByte(.seconds(60))),
                FaultRule(path: "/videos/clear/400k/seg20.ts", fault: .addedTimeToFirstByte(.seconds(60))),
                FaultRule(path: "/videos/clear/400k/*.ts", fault: .addedTimeToFirstByte(.milliseconds(30))),
            ])
        }) { fixture in
            var manager = try await fixture.makeManager()
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            try await manager.wait(for: token, progress: 0.25)
            await manager.shutdown()
            let stopped = await manager.status(token)?.progress ?? 0
            #expect(stopped > 0 && stopped < 1, "stopped at \(stopped)")
            // shutdown() waits at most 5 s for the transfers: the disk is read once none
            // holds a file of the package open. Requests cut by the stop are logged whenever
            // the origin notices: the relaunch's are told by when they started.
            let package = fixture.package(token)
            #expect(try await waitUntilClosed(under: package), "still open after the shutdown: \(openFiles(under: package))")
            let relaunch = fixture.server.nowNanoseconds
            let atStop = StoppedPackage(videoDirectory: package + "/video")
            fixture.server.setFaultRules(try FaultRuleSet(rules: []))
            manager = try await fixture.makeManager(termination: .crash)
            #expect(try await manager.wait(for: token) { $0 == .downloaded || $0 == .failed } == .downloaded)
            await manager.shutdown()
            // No segment stored at the stop was fetched again; each `.part` resumed by Range.
            #expect(!atStop.stored.isEmpty)
            atStop.expectResumed(by: fixture.server.requests(startedAfter: relaunch), prefix: "/videos/clear/400k/seg")
            let again = try await fixture.makeManager(termination: .userForceQuit)
            #expect(await again.status(token)?.state == .downloaded)
            await again.shutdown()
        }
    }

    @Test func aForceQuitFailsTheDownloadsInFlightAtOnce() async throws {
        try await withEngine(sizeScale: 0.2, { configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/clear/400k/*.ts", fault: .addedTimeToFirstByte(.milliseconds(50)))
            ])
        }) { fixture in
            let manager = try await fixture.makeManager()
            let token = try await manager.requestDownload(video: try await fixture.video("clear"))
            _ = try await manager.wait(for: token) { $0 == .downloading }
            await manager.shutdown()
            let relaunched = try await fixture.makeManager(termination: .userForceQuit)
            let status = try #require(await relaunched.status(token))
            #expect(status.state == .failed && status.failure == .interrupted(.userForceQuit))
            try await relaunched.delete(token)
            #expect(await relaunched.tokens.isEmpty)
            await relaunched.shutdown()
        }
    }
}
