import Foundation
import ResilienceHarness
import Testing

/// `bench scenario check`, `--scenario-file` and the shipped directory: what a user sees
/// when a scenario file is good, bad, or not where bench looks.
@Suite(.timeLimit(.minutes(2))) final class BenchScenarioCommandTests: Sendable {
    /// Every file a test writes goes under this directory, removed with the test.
    let root = NSTemporaryDirectory() + "deadzone-scenarios-\(UUID().uuidString)"

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    func temporary(_ text: String, named name: String = "scenario") throws -> String {
        let directory = root + "/\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/\(name).yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func checkPrintsOneLinePerValidFile() async throws {
        let files = try ShippedScenarios.suite().entries.map(\.path)
        let outcome = try await runBench(["scenario", "check"] + files)
        #expect(outcome.status == 0, "\(outcome.output)")
        let lines = outcome.stdout.split(separator: "\n")
        #expect(lines.count == files.count)
        #expect(lines.first?.hasPrefix("\(files[0]): valid: auto-suspend-on-disconnect: ") == true, "\(outcome.stdout)")
    }

    @Test func checkOfAnInvalidFileExitsTwoNamingItsLine() async throws {
        let path = try temporary("name: broken\nsummary: s\nsteps:\n  - launch\n  - hold: soon\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let good = try ShippedScenarios.suite().entries[0].path
        let outcome = try await runBench(["scenario", "check", good, path])
        #expect(outcome.status == 2)
        #expect(outcome.stdout.contains("\(good): valid"), "\(outcome.output)")
        #expect(outcome.stderr.contains("error: \(path):5:11: steps[1].hold: "), "\(outcome.output)")
        #expect(outcome.stderr.contains("expected a duration like"), "\(outcome.output)")
    }

    @Test func aRunWithAnInvalidScenarioFileIsBadInputBeforeAnythingStarts() async throws {
        let path = try temporary("name: broken\nsummary: s\nstep: [launch]\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        for command in [["--profile", "Profiles/flaky-wifi.yaml"], ["gate", "--baseline", "Reports/baseline.json"]] {
            let outcome = try await runBench(command + ["--scenario-file", path], in: ShippedScenarios.root)
            #expect(outcome.status == 2, "\(outcome.output)")
            #expect(outcome.output.contains("\(path):3:1: step: unknown key 'step'"), "\(outcome.output)")
        }
    }

    @Test func withoutAScenariosDirectoryBenchSaysWhereItLookedAndWhatToDo() async throws {
        let empty = NSTemporaryDirectory() + "deadzone-no-scenarios-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let outcome = try await runBench(["scenarios"], in: empty)
        #expect(outcome.status == 2)
        #expect(outcome.output.contains("no scenario directory at "), "\(outcome.output)")
        #expect(outcome.output.contains("--scenario-file FILE"), "\(outcome.output)")
    }
}
