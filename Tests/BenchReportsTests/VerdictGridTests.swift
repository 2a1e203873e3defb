@testable import BenchReports
import BenchResults
import Foundation
import Testing

/// The top of `report.html`: what failed, one sentence each, then the scenario ×
/// property grid; the run's facts folded below.
@Suite struct VerdictGridTests {
    static func scenario(
        _ verdicts: [Verdict], preconditions: [PreconditionResult] = [], asserts: [String]? = ["a"],
        unsupported: [String]? = nil
    ) -> ScenarioResult {
        ScenarioResult(
            name: "s", summary: "", verdicts: verdicts, metrics: ScenarioMetrics(), startNanoseconds: 0, endNanoseconds: 10,
            preconditions: preconditions, unsupported: unsupported, asserts: asserts)
    }

    static let unmet = [PreconditionResult(name: "kills-with-bytes-in-flight", met: false, detail: "1 of 3")]

    @Test func aCellIsTheVerdictUnlessItsSituationWasNotCreated() {
        let verdicts = [
            Verdict(property: "a", outcome: .passed, summary: ""), Verdict(property: "b", outcome: .passed, summary: ""),
            Verdict(property: "c", outcome: .failed, summary: ""), Verdict(property: "d", outcome: .notApplicable, summary: ""),
        ]
        let met = Self.scenario(verdicts)
        #expect(["a", "b", "c", "d", "e"].map(met.cell) == [.passed, .passed, .failed, .notExercised, .absent])
        // An unmet precondition leaves what the scenario asserts unproven; a failure stays a failure.
        let unmet = Self.scenario(verdicts, preconditions: Self.unmet, asserts: ["a", "c"])
        #expect(["a", "b", "c", "d"].map(unmet.cell) == [.preconditionUnmet, .passed, .failed, .notExercised])
        // A report without `asserts` takes every property as asserted.
        let old = Self.scenario(verdicts, preconditions: Self.unmet, asserts: nil)
        #expect(["a", "b", "c"].map(old.cell) == [.preconditionUnmet, .preconditionUnmet, .failed])
        #expect(Self.scenario([], unsupported: ["licenses"]).cell("a") == .unsupported)
    }

    @Test func assertsRoundTripsThroughReportJSONAndAnOldReportHasNone() throws {
        let report = RunReport(run: SampleRun.report().run, scenarios: [Self.scenario([], asserts: ["crash-recovery"])])
        let data = try ReportJSON.encode(report)
        #expect(try ReportJSON.decode(data).scenarios.first?.asserts == ["crash-recovery"])
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var scenarios = try #require(object["scenarios"] as? [[String: Any]])
        scenarios[0]["asserts"] = nil
        object["scenarios"] = scenarios
        let old = try JSONSerialization.data(withJSONObject: object)
        #expect(try ReportJSON.decode(old).scenarios.first?.asserts == nil)
    }

    /// The page answers first: the badge, what failed, the grid; the run's facts come
    /// after the scenarios, folded.
    @Test func thePageOpensWithTheFailuresAndTheGrid() throws {
        let html = try HTMLReport.render(SampleRun.report(), trace: SampleRun.trace())
        let root = try ParsedElement.parse(Data(html.utf8))
        let body = try #require(root.elements("body").first)
        let order = body.children.compactMap { $0.name == "section" ? $0.attributes["id"] ?? $0.attributes["class"] : $0.name }
        #expect(Array(order.prefix(3)) == ["h1", "failures", "grid"], "\(order)")
        let facts = try #require(root.all.first { $0.attributes["id"] == "run" })
        #expect(facts.children.first?.name == "details")
        #expect(Array(order.suffix(5)) == ["scenario-1", "scenario-2", "scenario-3", "run", "legend"], "\(order)")
    }

    @Test func everyFailureIsOneLineLinkedToItsMoment() throws {
        let root = try ParsedElement.parse(Data(try HTMLReport.render(SampleRun.report(), trace: SampleRun.trace()).utf8))
        let items = try #require(root.all.first { $0.attributes["class"] == "failures" }).elements("li")
        // The failed property (its summary, and when the harness first saw it) and the
        // scenario that could not run to its end.
        #expect(items.count == 2)
        let failed = try #require(items.first)
        #expect(failed.allText.hasPrefix("crash-recovery × recovery-after-crash: Segment <seg3> fetched twice"))
        #expect(failed.allText.hasSuffix("First seen at 16 s: killed <pid 42>"))
        #expect(failed.elements("a").first?.attributes["href"] == "#failure-2-recovery-after-crash")
        #expect(items.last?.allText == "time-limit × could not run to its end: time limit 4 s passed <&>")
        #expect(items.last?.elements("a").first?.attributes["href"] == "#scenario-3")
    }

    @Test func theGridHasARowPerScenarioAndAColumnPerProperty() throws {
        let root = try ParsedElement.parse(Data(try HTMLReport.render(SampleRun.report(), trace: SampleRun.trace()).utf8))
        let grid = try #require(root.all.first { $0.name == "table" && $0.attributes["class"] == "grid" })
        let heads = grid.elements("thead").first?.elements("th").map(\.allText) ?? []
        #expect(heads == ["scenario", "auto-suspend-on-disconnect", "no-cellular-unless-allowed", "legal-transitions",
                          "recovery-after-crash", "license-before-background", "monotonic-progress"])
        let rows = grid.elements("tbody").first?.elements("tr") ?? []
        #expect(rows.map { $0.elements("td").map(\.allText).joined() } == ["✓·????", "??✓✗·?", "?????✓"])
        // Each cell links to its evidence: the failure's mark, the verdict's row, or the scenario.
        let failed = try #require(rows[1].elements("td").first { $0.attributes["class"] == "cell-failed" })
        #expect(failed.elements("a").first?.attributes["href"] == "#failure-2-recovery-after-crash")
        let passed = try #require(rows[0].elements("td").first)
        #expect(passed.elements("a").first?.attributes["href"] == "#verdict-1-auto-suspend-on-disconnect")
        #expect(rows[0].elements("td")[2].elements("a").first?.attributes["href"] == "#scenario-1")
    }

    @Test func theGatesPageShowsEachScenariosMetricsBesideTheGrid() throws {
        let report = SampleRun.report()
        var baseline = Baseline().updated(from: report)
        baseline.scenarios["crash-recovery"]?["bytes_refetched_after_crash"]?.value = 0
        let html = try HTMLReport.render(report, trace: [], comparison: GateComparison(report: report, baseline: baseline))
        let root = try ParsedElement.parse(Data(html.utf8))
        let cells = root.all.filter { $0.attributes["class"]?.hasPrefix("metrics-cell") == true }
        #expect(cells.count == 3)
        #expect(cells[1].attributes["class"] == "metrics-cell fail")
        #expect(cells[1].allText.hasPrefix("1 regressed"))
    }

    @Test func theRerunCommandPlaysTheSameRun() {
        var report = SampleRun.report()
        #expect(HTMLReportView.rerun(report) == "swift run bench --profile Profiles/subway-commute.yaml --seed 42 "
            + "--scenario auto-suspend --scenario crash-recovery --scenario time-limit")
        report.run.agent = "deadzone --misbehave fail-on-outage"
        report.run.jobs = 2
        #expect(HTMLReportView.rerun(report).hasSuffix("--scenario time-limit --misbehave fail-on-outage --jobs 2"))
        report.run.agent = "python3 my agent.py --it's"
        #expect(HTMLReportView.rerun(report).contains(#"--agent 'python3 my agent.py --it'\''s'"#))
    }
}
