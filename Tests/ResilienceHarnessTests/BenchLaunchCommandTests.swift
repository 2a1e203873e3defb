import Foundation
@testable import ResilienceHarness
import Testing

/// `bench --agent-listen HOST:PORT --launch 'CMD' --kill 'CMD'` end to end: the Python
/// reference engine, started by a launch command and connected over the socket, gets
/// the verdicts it gets on stdin/stdout with the same seed (a crash and a relaunch
/// included), and a bad launch is an error in the report, never a pass; an app whose
/// storage is elsewhere (`--app-storage`, `--storage-sync`) gets the same verdicts from
/// the copies its sync command makes, and a failing sync is an error.
@Suite(.timeLimit(.minutes(6))) struct BenchLaunchCommandTests {
    typealias Scratch = BenchRunCommandTests.Scratch

    static let engine = ShippedScenarios.root + "/examples/agents/python/agent.py"
    static let scenarios = ["--scenario", "crash-recovery"]

    @Test func overTheSocketTheEngineGetsTheVerdictsItGetsOnStdio() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let common = ["--profile", scratch.profile, "--seed", "7"] + Self.scenarios
        let stdio = try await runBench(common + ["--agent", "python3 \(Self.engine)", "--out", scratch.out + "/stdio"], in: scratch.root)
        let socket = try await runBench(
            common + ["--agent-listen", "127.0.0.1:0", "--launch", "exec python3 '\(Self.engine)'", "--out", scratch.out + "/socket"],
            in: scratch.root)
        #expect(stdio.status == 0, "\(stdio.output)")
        #expect(socket.status == 0, "\(socket.output)")
        #expect(socket.stderr.contains("bench: apps connect to 127.0.0.1:"), "\(socket.stderr)")
        let overStdio = try BenchRunCommandTests.decodeReport(scratch.text("stdio/report.json"))
        let overSocket = try BenchRunCommandTests.decodeReport(scratch.text("socket/report.json"))
        #expect(BenchShardCommandTests.verdicts(overSocket) == BenchShardCommandTests.verdicts(overStdio))
        // The crash happened: crash-recovery's verdict rests on a kill and a relaunch.
        let crash = try #require(overSocket.scenarios.first { $0.name == "crash-recovery" })
        #expect(crash.verdicts.contains { $0.property == "crash-recovery" && $0.outcome == .passed }, "\(crash.verdicts)")
        #expect(overSocket.run.agent == "exec python3 '\(Self.engine)'")
    }

    @Test func aLaunchThatFailsIsAScenarioErrorAndBadOptionsAreBadInput() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let failing = try await runBench(
            ["--profile", scratch.profile, "--scenario", "housekeeping", "--agent-listen", "127.0.0.1:0",
             "--launch", "echo no simulator booted >&2; exit 9", "--out", scratch.out + "/failing"], in: scratch.root)
        #expect(failing.status == 1, "\(failing.output)")
        let report = try BenchRunCommandTests.decodeReport(scratch.text("failing/report.json"))
        let error = report.scenarios.first?.error ?? ""
        #expect(error.contains("the app could not be launched") && error.contains("exit status 9")
            && error.contains("no simulator booted"), "\(error)")
        #expect(!report.passed)

        let refusals: [([String], String)] = [
            (["--agent", "python3 x.py", "--launch", "python3 x.py"], "--launch starts the app instead of --agent"),
            (["--agent-listen", "localhost"], "is not HOST:PORT"),
            (["--agent-listen", "example.com:80"], "is not an IPv4 address"),
            (["--launch", " "], "--launch is empty"),
        ]
        for (arguments, says) in refusals {
            let refused = try await runBench(
                ["--profile", scratch.profile, "--scenario", "housekeeping"] + arguments + ["--out", scratch.out + "/refused"],
                in: scratch.root)
            #expect(refused.status == 2 && refused.stderr.contains(says), "\(says): \(refused.output)")
        }
    }

    /// Copies the app's storage, as `adb pull` or `xcrun simctl` would, into the harness's
    /// empty copy (nothing to copy before the app made its storage). The app is still
    /// running, so a file listed may be gone when it is read (CI once saw SQLite's journal
    /// vanish under `cp`): a failed copy is emptied and tried again, up to three times.
    static let copy = #"[ -d "$DEADZONE_STORAGE" ] || exit 0; for try in 1 2 3; do cp -R "$DEADZONE_STORAGE/." "$DEADZONE_SYNC_TO" && exit 0; find "$DEADZONE_SYNC_TO" -mindepth 1 -delete; done; exit 1"#

    @Test func anAppWhoseStorageIsElsewhereIsJudgedFromCopiesItsSyncCommandMade() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let device = scratch.root + "/device"
        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
        let common = ["--profile", scratch.profile, "--seed", "7", "--agent", "python3 \(Self.engine)"] + Self.scenarios
        let inPlace = try await runBench(common + ["--out", scratch.out + "/in-place"], in: scratch.root)
        let synced = try await runBench(
            common + ["--app-storage", device, "--storage-sync", Self.copy, "--out", scratch.out + "/synced"], in: scratch.root)
        #expect(inPlace.status == 0, "\(inPlace.output)")
        #expect(synced.status == 0, "\(synced.output)")
        let local = try BenchRunCommandTests.decodeReport(scratch.text("in-place/report.json"))
        let copied = try BenchRunCommandTests.decodeReport(scratch.text("synced/report.json"))
        #expect(BenchShardCommandTests.verdicts(copied) == BenchShardCommandTests.verdicts(local))
        let crash = try #require(copied.scenarios.first { $0.name == "crash-recovery" })
        #expect(crash.verdicts.contains { $0.property == "crash-recovery" && $0.outcome == .passed }, "\(crash.verdicts)")
        // Every read was of a copy: the one after the kill, and those of the finished packages.
        let reads = (crash.storageSyncs ?? []).map(\.read)
        #expect(reads.contains("kill") && reads.contains("downloaded"), "\(reads)")
        #expect((crash.storageSyncs ?? []).allSatisfy { $0.error == nil })
        #expect(local.scenarios.allSatisfy { $0.storageSyncs == nil })
        // The app kept its storage where it was told (the harness leaves the app's side alone).
        let kept = try FileManager.default.contentsOfDirectory(atPath: device)
        #expect(kept.contains { $0.hasPrefix("deadzone-crash-recovery-") }, "\(kept)")
        #expect(scratch.text("synced/report.html").contains("read from a copy its sync command made"))
    }

    @Test func aStorageSyncThatFailsIsAScenarioErrorAndBadOptionsAreBadInput() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let failing = try await runBench(
            ["--profile", scratch.profile, "--seed", "7", "--agent", "python3 \(Self.engine)", "--scenario", "crash-recovery",
             "--app-storage", scratch.root + "/device", "--storage-sync", "echo no device attached >&2; exit 4",
             "--out", scratch.out + "/failing"], in: scratch.root)
        #expect(failing.status == 1, "\(failing.output)")
        let report = try BenchRunCommandTests.decodeReport(scratch.text("failing/report.json"))
        let error = report.scenarios.first?.error ?? ""
        #expect(error.contains("the storage sync before a read") && error.contains("exit status 4")
            && error.contains("no device attached"), "\(error)")
        #expect(!report.passed)

        let refusals: [([String], String)] = [
            (["--storage-sync", "true"], "--storage-sync needs --app-storage"),
            (["--app-storage", "/data/app"], "--app-storage needs --storage-sync"),
            (["--app-storage", "data/app", "--storage-sync", "true"], "is not an absolute path"),
        ]
        for (arguments, says) in refusals {
            let refused = try await runBench(
                ["--profile", scratch.profile, "--scenario", "housekeeping", "--agent", "python3 \(Self.engine)"] + arguments
                    + ["--out", scratch.out + "/refused"],
                in: scratch.root)
            #expect(refused.status == 2 && refused.stderr.contains(says), "\(says): \(refused.output)")
        }
    }
}

