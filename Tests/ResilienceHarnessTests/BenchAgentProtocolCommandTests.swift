import Foundation
import ResilienceHarness
import Testing

/// `bench --agent` with apps that break the protocol or lack capabilities, as a user
/// runs it: the exit status, the summary, the report files.
@Suite(.serialized, .timeLimit(.minutes(5))) struct BenchAgentProtocolCommandTests {
    typealias Scratch = BenchRunCommandTests.Scratch

    @Test func anAppOfAnotherVersionFailsEveryScenarioWithTheProtocolErrorAndTheReportsAreWritten() async throws {
        let scratch = try Scratch()
        let fake = try FakeApp()
        defer { scratch.remove(); fake.remove() }
        let run = try await runBench([
            "--profile", scratch.profile, "--scenario", "housekeeping", "--scenario", "cellular-policy",
            "--agent", fake.agentArgument("version"), "--out", scratch.out,
        ], in: scratch.root)
        #expect(run.status == 1, "\(run.output)")
        let expected = "protocol error: the app does not speak protocol 1: it speaks protocol 2"
        #expect(run.output.contains("FAIL  " + expected), "\(run.output)")
        let report = try BenchRunCommandTests.decodeReport(scratch.text("report.json"))
        #expect(report.scenarios.map(\.name) == ["housekeeping", "cellular-policy"])
        #expect(report.scenarios.allSatisfy { $0.error?.hasPrefix(expected) == true }, "\(report.scenarios.map(\.error))")
        #expect(report.run.agent == fake.agentArgument("version"))
        #expect(scratch.text("junit.xml").contains(expected) && scratch.text("report.html").contains(expected))
        #expect(scratch.text("trace.jsonl").contains(expected), "the trace has no note of the break")
    }

    @Test func unsupportedScenariosAreNamedEverywhereAndARunOfNothingButThemFails() async throws {
        let scratch = try Scratch()
        let fake = try FakeApp()
        defer { scratch.remove(); fake.remove() }
        let run = try await runBench([
            "--profile", scratch.profile, "--scenario", "cellular-policy", "--agent", fake.agentArgument("caps:inspect"),
            "--out", scratch.out,
        ], in: scratch.root)
        #expect(run.status == 1, "nothing was played: \(run.output)")
        #expect(run.output.contains("UNSUPPORTED  unsupported: cellularSetting"), "progress line: \(run.output)")
        #expect(run.stdout.contains("cellular-policy  unsupported"), "summary table: \(run.stdout)")
        #expect(run.stdout.contains("1 unsupported, not played: cellular-policy (cellularSetting); no scenario was played"))
        let report = try BenchRunCommandTests.decodeReport(scratch.text("report.json"))
        #expect(report.scenarios.first?.unsupported == ["cellularSetting"])
        #expect(scratch.text("junit.xml").contains(#"<skipped message="unsupported: cellularSetting"/>"#))
    }

    @Test func theGateRefusesABaselineMadeWithAnotherAgentBeforeRunning() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.writeBaseline(Baseline(profile: "cli-test", scenarios: [:]))
        let run = try await runBench([
            "gate", "--profile", scratch.profile, "--baseline", scratch.root + "/Reports/baseline.json",
            "--agent", "python3 mine.py", "--out", scratch.out,
        ], in: scratch.root)
        #expect(run.status == 2, "\(run.output)")
        #expect(run.stderr.contains(#"was made with the agent "deadzone", not "python3 mine.py""#), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.out), "it ran before refusing")
    }
}
