import BenchCore
import Crypto
import FixtureOrigin
import Foundation
import OfflineDownloads
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Recovery from a real crash: `bench download` runs the engine in a child process, is
/// killed with SIGKILL mid-download, and a second run on the same storage finishes.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ChildProcessRecoveryTests {
    /// The `bench` executable `swift test` built beside the test bundle.
    static func benchExecutable() throws -> String {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [directory, directory.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("bench").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw BenchMissing(directory: directory.path)
    }

    struct BenchMissing: Error, CustomStringConvertible {
        var directory: String
        var description: String { "no bench executable near \(directory): run `swift build` before `swift test --skip-build`" }
    }

    /// Starts `bench download`, with its stdout collected into `output`.
    private func launch(_ arguments: [String], output: URL) throws -> ChildProcess {
        try ChildProcess.spawn(try Self.benchExecutable(), ["download"] + arguments, stdout: .file(output.path))
    }

    /// Waits (up to 60 s) until the child's output at `log` contains `text`.
    private func waitForLine(_ text: String, in log: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        var output = ""
        await eventually("the child printing \"\(text)\" (it printed: \(output))", sourceLocation: sourceLocation) {
            output = String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self)
            return output.contains(text)
        }
    }

    /// Waits (up to 120 s) for the child to end by itself; then (or if it does not) stops it.
    private func waitForEnd(of child: ChildProcess, sourceLocation: SourceLocation = #_sourceLocation) async {
        await eventually("bench download ending by itself", within: 120, every: .milliseconds(20), sourceLocation: sourceLocation) {
            !child.isRunning
        }
        child.send(SIGTERM)
        _ = await child.exit()
    }

    @Test func aSIGKILLedDownloadResumesWithoutFetchingStoredSegmentsAgain() async throws {
        // Segments 10 to 19 hold their first byte for a minute, so the first run is
        // always caught with segments 0-9 stored and others in flight.
        try await withEngine(sizeScale: 0.2, { configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/clear/400k/seg1?.ts", fault: .addedTimeToFirstByte(.seconds(60)))
            ])
        }) { fixture in
            let storage = fixture.scratch.file("storage")
            let video = fixture.server.url("/videos/clear").absoluteString
            let log1 = URL(fileURLWithPath: fixture.scratch.file("run1.log"))
            let first = try launch([video, "--storage", storage], output: log1)
            // Wait for 30% of the video, then kill the process where it stands.
            try await waitForLine("video 30%", in: log1)
            first.send(SIGKILL)
            #expect(await first.exit() == .signalled(SIGKILL))
            // The killed run's cut requests are logged whenever the origin notices: judge by start.
            let relaunch = fixture.server.nowNanoseconds
            let packagesAtKill = try FileManager.default.contentsOfDirectory(atPath: storage + "/packages")
            let atKill = StoppedPackage(videoDirectory: storage + "/packages/\(packagesAtKill.first ?? "")/video")
            #expect(!atKill.stored.isEmpty && atKill.stored.count < 21, "\(atKill.stored.count) segments stored at the kill")
            fixture.server.setFaultRules(try FaultRuleSet(rules: []))

            let log2 = URL(fileURLWithPath: fixture.scratch.file("run2.log"))
            let second = try launch([video, "--storage", storage, "--after", "crash"], output: log2)
            await waitForEnd(of: second)
            let output = String(decoding: (try? Data(contentsOf: log2)) ?? Data(), as: UTF8.self)
            #expect(second.termination?.status == 0, "\(output)")
            #expect(output.contains("resuming"), "\(output)")

            // Every segment is there, byte for byte; none stored at the kill was fetched again.
            let manifest = try fixture.server.store.hashManifest(videoIDs: ["clear"])
            let packages = try FileManager.default.contentsOfDirectory(atPath: storage + "/packages")
            #expect(packages.count == 1)
            for index in 0..<21 {
                let file = storage + "/packages/\(packages[0])/video/" + String(format: "seg%05d.ts", index)
                let data = try Data(contentsOf: URL(fileURLWithPath: file))
                let hash = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
                #expect(hash == manifest.entries["/videos/clear/400k/seg\(index).ts"]?.sha256, "segment \(index)")
            }
            atKill.expectResumed(by: fixture.server.requests(startedAfter: relaunch), prefix: "/videos/clear/400k/seg")
        }
    }

    @Test func aForceQuitRelaunchReportsTheDownloadAsFailed() async throws {
        // Segments 10 to 19 hold their first byte for a minute: however late the kill
        // comes on a loaded machine, the first run cannot have finished.
        try await withEngine(sizeScale: 0.2, { configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/clear/400k/seg1?.ts", fault: .addedTimeToFirstByte(.seconds(60)))
            ])
        }) { fixture in
            let storage = fixture.scratch.file("storage")
            let video = fixture.server.url("/videos/clear").absoluteString
            let log1 = URL(fileURLWithPath: fixture.scratch.file("run1.log"))
            let first = try launch([video, "--storage", storage], output: log1)
            try await waitForLine("video 10%", in: log1)
            first.send(SIGKILL)
            await first.exit()
            let log2 = URL(fileURLWithPath: fixture.scratch.file("run2.log"))
            let second = try launch([video, "--storage", storage, "--after", "userForceQuit"], output: log2)
            await waitForEnd(of: second)
            let output = String(decoding: (try? Data(contentsOf: log2)) ?? Data(), as: UTF8.self)
            #expect(second.termination?.status == 1, "\(output)")
            #expect(output.contains("-> failed"), "\(output)")
        }
    }
}
