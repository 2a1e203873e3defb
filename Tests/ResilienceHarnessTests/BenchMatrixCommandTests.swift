import Foundation
import ResilienceHarness
import Testing

/// `bench matrix` end to end: two engines (Deadzone's, and a small app that lacks
/// capabilities) on one short scenario; each run's own report directory, and the
/// matrix files whose cells link to them.
@Suite(.serialized, .timeLimit(.minutes(5))) struct BenchMatrixCommandTests {
    @Test func twoEnginesOnOneScenarioMakeOneMatrixLinkingToEachRunsReport() async throws {
        let scratch = try BenchRunCommandTests.Scratch()
        let fake = try FakeApp()
        defer { scratch.remove(); fake.remove() }
        let run = try await runBench([
            "matrix", "--agent", "deadzone", "--agent", "small=" + fake.agentArgument("caps:inspect,pause"),
            "--profile", scratch.profile, "--scenario", "housekeeping", "--out", scratch.out, "--jobs", "1",
        ], in: scratch.root)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.stdout.contains("deadzone @ cli-test: 1 pass"), "\(run.stdout)")
        #expect(run.stdout.contains("small @ cli-test: 1 unsupported"), "\(run.stdout)")
        for directory in ["deadzone--cli-test", "small--cli-test"] {
            #expect(FileManager.default.fileExists(atPath: "\(scratch.out)/\(directory)/report.html"), "\(directory)")
        }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(scratch.text("matrix.json").utf8)) as? [String: Any])
        let rows = try #require(json["rows"] as? [[String: Any]])
        let outcomes = rows.map { row in ((row["cells"] as? [[String: Any]]) ?? []).map { $0["outcome"] as? String ?? "?" } }
        #expect(outcomes.first == ["pass", "unsupported"], "\(outcomes)")
        #expect(outcomes.dropFirst().allSatisfy { $0.count == 2 && $0[1] == "unsupported" && $0[0] != "fail" }, "\(outcomes)")
        #expect(rows.contains { $0["property"] as? String == "pause-holds" })
        let html = scratch.text("matrix.html")
        #expect(html.contains(#"href="deadzone--cli-test/report.html#scenario-1""#))
        #expect(html.contains(#"title="unsupported: cancelAndDelete, licenses, rentals""#), "\(html.prefix(3000))")
        #expect(scratch.text("junit.xml").contains(#"<testsuite name="small @ cli-test""#))
        // --jobs reaches each run (its report says how many scenarios played at once).
        let report = try #require(try JSONSerialization.jsonObject(
            with: Data(scratch.text("deadzone--cli-test/report.json").utf8)) as? [String: Any])
        #expect((report["run"] as? [String: Any])?["jobs"] as? Int == 1)
    }

    @Test func jobsBelowOneIsBadInputBeforeAnythingRuns() async throws {
        let scratch = try BenchRunCommandTests.Scratch()
        defer { scratch.remove() }
        let run = try await runBench(["matrix", "--agent", "deadzone", "--jobs", "0", "--out", scratch.out], in: scratch.root)
        #expect(run.status == 2)
        #expect(run.stderr.contains("--jobs must be at least 1"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.out))
    }
}
