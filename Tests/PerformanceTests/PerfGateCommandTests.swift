import BenchCore
import Foundation
import Testing

/// `bench perf gate` as CI runs it, the real executable measuring for real: with a threshold
/// no machine can reach it exits 1 naming every ratio; with a broken thresholds file it exits
/// 2 before measuring anything.
@Suite(.serialized, .timeLimit(.minutes(5))) struct PerfGateCommandTests {
    /// The `bench` executable `swift build --build-tests` put beside the test bundle.
    static func benchExecutable() throws -> String {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [directory, directory.deletingLastPathComponent()] {
            let path = candidate.appendingPathComponent("bench").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw PerfGateCommandTestError(description: "no bench executable near \(directory.path): run `swift build --build-tests`")
    }

    struct PerfGateCommandTestError: Error, CustomStringConvertible { var description: String }

    /// Writes `text` to a temporary thresholds file and runs `bench perf gate --quick` on it.
    func gate(thresholds text: String) async throws -> ChildProcess.Outcome {
        let path = NSTemporaryDirectory() + "deadzone-perf-thresholds-\(UUID().uuidString).yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try await ChildProcess.run(try Self.benchExecutable(), ["perf", "gate", "--quick", "--thresholds", path],
                                          timeout: .seconds(240))
    }

    @Test func anImpossibleThresholdFailsTheRealGateNamingEveryRatio() async throws {
        let impossible = ["debug", "release"].map { configuration in
            "\(configuration):\n" + ["proxy-over-forwarder", "proxy-over-direct", "engine-goodput"].map { "  \($0): 1000\n" }.joined()
        }.joined()
        let run = try await gate(thresholds: impossible)
        #expect(!run.timedOut)
        #expect(run.status == 1, "stdout: \(run.stdout.suffix(2000)) stderr: \(run.stderr.suffix(1000))")
        // Every ratio was measured (a figure for each) and each is named below its threshold.
        for ratio in ["proxy-over-forwarder", "proxy-over-direct", "engine-goodput"] {
            let line = run.stdout.split(separator: "\n").first { $0.hasPrefix("  FAIL  \(ratio) ") }
            #expect(line?.contains(" < threshold 1000.000  (") == true, "\(ratio): \(run.stdout.suffix(1500))")
        }
        #expect(run.stdout.contains("bench perf gate: FAILED (3 of 3 ratios): proxy-over-forwarder "))
        #expect(run.stdout.contains("0 section(s) with errors"))
    }

    @Test func aBrokenThresholdsFileExits2BeforeMeasuring() async throws {
        let run = try await gate(thresholds: "debug:\n  proxy-over-forwarder: fast\n")
        #expect(run.status == 2, "stdout: \(run.stdout) stderr: \(run.stderr)")
        #expect(run.stderr.contains("`debug.proxy-over-forwarder` is `fast`: write a ratio, a number above 0"))
        #expect(!run.stdout.contains("Unshaped throughput"))
    }
}
