import Foundation
import ResilienceHarness
import Testing

/// `bench --jobs N`: scenarios play at the same time, each in its own world, and the
/// report keeps them apart: every trace line names its scenario, each scenario is judged
/// on its own lines, and each records the load it played under.
@Suite(.serialized, .timeLimit(.minutes(5))) struct BenchConcurrentRunTests {
    @Test func twoScenariosPlayTogetherEachJudgedOnItsOwnTaggedTrace() async throws {
        let scratch = try BenchRunCommandTests.Scratch()
        defer { scratch.remove() }
        let names = ["cellular-policy", "license-before-background"]
        let run = try await runBench(
            ["--profile", scratch.profile, "--scenario", names[0], "--scenario", names[1], "--jobs", "2", "--json",
             "--out", scratch.out], in: scratch.root)
        #expect(run.status == 0, "\(run.output)")
        let report = try BenchRunCommandTests.decodeReport(run.stdout)
        #expect(report.run.jobs == 2)
        #expect(report.scenarios.map(\.name) == names, "the report keeps the order of the files")
        let (a, b) = (report.scenarios[0], report.scenarios[1])
        #expect(a.startNanoseconds < b.endNanoseconds && b.startNanoseconds < a.endNanoseconds, "the windows overlap")
        #expect(a.load?.alongside == 1 && b.load?.alongside == 1, "\(String(describing: a.load)) \(String(describing: b.load))")
        // Progress names the scenario on each result line when several play.
        #expect(run.stderr.contains("cellular-policy: PASS") && run.stderr.contains("license-before-background: PASS"), "\(run.stderr)")

        let lines = scratch.text("trace.jsonl").split(separator: "\n")
        let entries = try lines.map { try JSONDecoder().decode(TraceEntry.self, from: Data($0.utf8)) }
        #expect(!entries.isEmpty && entries.allSatisfy { $0.scenario.map(names.contains) == true }, "an untagged line")
        for name in names {
            let own = entries.filter { $0.scenario == name }
            let started = own.compactMap { entry -> String? in
                if case .harness(.scenarioStarted(let started, _, _)) = entry.event { return started }
                return nil
            }
            #expect(started == [name], "\(name)'s lines start only its own scenario: \(started)")
            #expect(own.contains { if case .origin = $0.event { true } else { false } }, "\(name) has its origin's requests")
        }
        #expect(zip(entries, entries.dropFirst()).allSatisfy { $0.t <= $1.t }, "one time axis, in order")
    }

    @Test func fewerThanOneJobIsBadInput() async throws {
        let scratch = try BenchRunCommandTests.Scratch()
        defer { scratch.remove() }
        let run = try await runBench(["--profile", scratch.profile, "--jobs", "0", "--out", scratch.out], in: scratch.root)
        #expect(run.status == 2, "\(run.output)")
        #expect(run.stderr.contains("--jobs must be at least 1"), "\(run.stderr)")
    }
}
