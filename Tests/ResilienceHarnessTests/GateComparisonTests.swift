import Foundation
import ResilienceHarness
import Testing

@Suite struct GateComparisonTests {
    /// One scenario with one verdict and the given figures.
    static func report(_ outcome: Verdict.Outcome = .passed, metrics: ScenarioMetrics, error: String? = nil) -> RunReport {
        RunReport(
            run: RunMetadata(
                profile: "p", profilePath: "Profiles/p.yaml", seed: 1, startedAt: Date(timeIntervalSince1970: 0),
                durationSeconds: 1, versions: [:], machine: [:]),
            scenarios: [
                ScenarioResult(
                    name: "outage", summary: "s",
                    verdicts: [Verdict(property: "auto-suspend-on-disconnect", outcome: outcome, summary: "2 downloads failed")],
                    metrics: metrics, startNanoseconds: 0, endNanoseconds: 1, error: error)
            ])
    }

    static let baseline = Baseline(scenarios: [
        "outage": [
            "time_to_complete_s": MetricBaseline(value: 40, tolerance: 0.25, direction: .lowerIsBetter),
            "goodput_bps": MetricBaseline(value: 1_000_000, tolerance: 0.2, direction: .higherIsBetter),
            "requests_during_outages": MetricBaseline(value: 0, tolerance: 0.5, direction: .lowerIsBetter, absoluteSlack: 2),
            "bytes_wifi": MetricBaseline(value: 5_000_000, tolerance: 1e6, direction: .informational),
        ]
    ])

    static let good = ScenarioMetrics(
        timeToCompleteSeconds: 41, goodputBitsPerSecond: 950_000, bytesByInterface: ["wifi": 9_000_000],
        requestsDuringOutages: 0)

    @Test func aRunWithinToleranceAndWithoutFailurePasses() {
        let gate = GateComparison(report: Self.report(metrics: Self.good), baseline: Self.baseline)
        #expect(gate.passed)
        #expect(gate.metrics.map(\.status) == [.informational, .withinTolerance, .withinTolerance, .withinTolerance])
        #expect(gate.lines(baselinePath: "Reports/baseline.json")
            == ["gate: PASS against Reports/baseline.json", "gate: no failure; 3 metrics within tolerance"])
    }

    @Test func aPropertyFailureFailsTheGate() {
        let gate = GateComparison(report: Self.report(.failed, metrics: Self.good), baseline: Self.baseline)
        #expect(!gate.passed)
        #expect(gate.propertyFailures == [.init(scenario: "outage", property: "auto-suspend-on-disconnect", summary: "2 downloads failed")])
        #expect(gate.regressions.isEmpty)
        #expect(gate.lines(baselinePath: "b.json").contains(
            "  property failed   outage / auto-suspend-on-disconnect: 2 downloads failed"))
    }

    @Test func aScenarioErrorFailsTheGate() {
        let gate = GateComparison(report: Self.report(metrics: Self.good, error: "time limit"), baseline: Self.baseline)
        #expect(!gate.passed && gate.scenarioErrors == [.init(scenario: "outage", message: "time limit")])
    }

    @Test func aRegressionBeyondToleranceFails() throws {
        var metrics = Self.good
        metrics.timeToCompleteSeconds = 50.6  // +26.5 % against 25 %
        metrics.goodputBitsPerSecond = 790_000  // -21 % against 20 %
        let gate = GateComparison(report: Self.report(metrics: metrics), baseline: Self.baseline)
        #expect(!gate.passed)
        #expect(gate.regressions.map(\.metric) == ["goodput_bps", "time_to_complete_s"])
        let time = try #require(gate.regressions.last)
        #expect(time.baseline?.value == 40 && time.current == 50.6)
        #expect(abs((time.deltaPercent ?? 0) - 26.5) < 1e-9)
        #expect(gate.lines(baselinePath: "b.json").contains(
            "  regression        outage / time_to_complete_s: 40 → 50.6 (+26.5 %), allowed +10"))
        #expect(gate.lines(baselinePath: "b.json").contains(
            "  regression        outage / goodput_bps: 1000000 → 790000 (-21.0 %), allowed -200000"))
    }

    @Test func worseButWithinToleranceIsNotARegression() {
        var metrics = Self.good
        metrics.timeToCompleteSeconds = 49.9  // +24.75 %
        metrics.goodputBitsPerSecond = 800_001
        let gate = GateComparison(report: Self.report(metrics: metrics), baseline: Self.baseline)
        #expect(gate.passed && gate.regressions.isEmpty)
    }

    @Test func aZeroBaselineUsesTheAbsoluteSlack() {
        var metrics = Self.good
        metrics.requestsDuringOutages = 2  // 0 × 50 % is 0, but the slack allows 2
        #expect(GateComparison(report: Self.report(metrics: metrics), baseline: Self.baseline).passed)
        metrics.requestsDuringOutages = 3
        let gate = GateComparison(report: Self.report(metrics: metrics), baseline: Self.baseline)
        #expect(gate.regressions.map(\.metric) == ["requests_during_outages"])
        // No percentage of zero: the delta is absolute.
        #expect(gate.regressions.first?.deltaPercent == nil && gate.regressions.first?.deltaText == "+3")
    }

    @Test func anImprovementBeyondTheAllowanceIsListedAndPasses() {
        var metrics = Self.good
        metrics.timeToCompleteSeconds = 20
        let gate = GateComparison(report: Self.report(metrics: metrics), baseline: Self.baseline)
        #expect(gate.passed)
        #expect(gate.metrics.first { $0.metric == "time_to_complete_s" }?.status == .improved)
    }

    @Test func aMetricMissingFromTheRunFailsAndANewOneIsOnlyListed() {
        var metrics = Self.good
        metrics.goodputBitsPerSecond = nil
        metrics.agentPeakRSSBytes = 50_000_000
        let gate = GateComparison(report: Self.report(metrics: metrics), baseline: Self.baseline)
        #expect(gate.missingMetrics.map(\.metric) == ["goodput_bps"])
        #expect(gate.newMetrics.map(\.metric) == ["agent_peak_rss_bytes"])
        #expect(!gate.passed)
        let lines = gate.lines(baselinePath: "b.json")
        #expect(lines.contains("  missing metric    outage / goodput_bps: in the baseline (1000000), not in the run"))
        #expect(lines.contains(
            "  new metric        outage / agent_peak_rss_bytes = 50000000 (not gated: --update-baseline records it)"))
        #expect(lines.last == "gate: 1 missing metric; 1 new metric; 2 metrics within tolerance")

        // Only a new metric: the gate passes.
        var onlyNew = Self.good
        onlyNew.agentPeakRSSBytes = 1
        #expect(GateComparison(report: Self.report(metrics: onlyNew), baseline: Self.baseline).passed)
    }

    @Test func aScenarioMissingFromTheRunFails() {
        var baseline = Self.baseline
        baseline.scenarios["crash"] = ["time_to_complete_s": MetricBaseline(value: 1, tolerance: 0.1, direction: .lowerIsBetter)]
        let gate = GateComparison(report: Self.report(metrics: Self.good), baseline: baseline)
        #expect(!gate.passed && gate.missingScenarios == ["crash"])
    }

    @Test func informationalMetricsNeverRegress() {
        var metrics = Self.good
        metrics.bytesByInterface = ["wifi": 0, "cellular": 1_000_000_000]
        let gate = GateComparison(report: Self.report(metrics: metrics), baseline: Self.baseline)
        #expect(gate.regressions.isEmpty)
        #expect(gate.newMetrics.map(\.metric) == ["bytes_cellular"])
        #expect(gate.passed)
    }

    /// `bench gate --scenario outage` against a baseline that also has `crash`.
    @Test func aPartialRunComparesOnlyTheScenariosItRan() {
        var baseline = Self.baseline
        baseline.scenarios["crash"] = ["time_to_complete_s": MetricBaseline(value: 1, tolerance: 0, direction: .lowerIsBetter)]
        let full = GateComparison(report: Self.report(metrics: Self.good), baseline: baseline)
        #expect(!full.passed && full.missingScenarios == ["crash"])
        let partial = GateComparison(report: Self.report(metrics: Self.good), baseline: baseline, onlyScenariosRun: true)
        #expect(partial.passed)
        #expect(partial.missingScenarios.isEmpty && partial.scenariosNotRun == ["crash"])
        #expect(partial.lines(baselinePath: "b.json") == [
            "gate: PASS against b.json",
            "  compared only     the scenarios run (outage); not run, not judged: crash",
            "gate: no failure; 3 metrics within tolerance",
        ])
        var slow = Self.good
        slow.timeToCompleteSeconds = 60
        #expect(!GateComparison(report: Self.report(metrics: slow), baseline: baseline, onlyScenariosRun: true).passed,
                "the scenarios run are still gated")
    }

    @Test func updatingTheBaselineIsRefusedOnlyForAFailingRun() throws {
        var slow = Self.good
        slow.timeToCompleteSeconds = 60
        #expect(GateComparison(report: Self.report(metrics: slow), baseline: Self.baseline)
            .updateRefusal(baselinePath: "b.json") == nil, "a regression is what updating accepts")
        let failed = GateComparison(report: Self.report(.failed, metrics: Self.good), baseline: Self.baseline)
        let refusal = try #require(failed.updateRefusal(baselinePath: "b.json"))
        #expect(refusal.first == "  property failed   outage / auto-suspend-on-disconnect: 2 downloads failed")
        #expect(refusal.last == "gate: FAIL: --update-baseline refused (1 property failure): a baseline is recorded "
            + "from a passing run only; b.json is unchanged. Fix the failure, then update.")
        let erred = GateComparison(report: Self.report(metrics: Self.good, error: "time limit"), baseline: Self.baseline)
        #expect(erred.updateRefusal(baselinePath: "b.json")?.contains("  scenario error    outage: time limit") == true)
    }
}
