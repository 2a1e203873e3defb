import Foundation
import ResilienceHarness
import Testing

@Suite struct GateCalibrationTests {
    static func report(
        _ metrics: ScenarioMetrics, scenario: String = "outage", profile: String = "p", verdicts: [Verdict] = []
    ) -> RunReport {
        RunReport(
            run: RunMetadata(
                profile: profile, profilePath: "p.yaml", seed: 1, startedAt: Date(timeIntervalSince1970: 0),
                durationSeconds: 60, versions: [:], machine: ["cpus": "2"]),
            scenarios: [ScenarioResult(
                name: scenario, summary: "", verdicts: verdicts, metrics: metrics, startNanoseconds: 0, endNanoseconds: 1)])
    }

    static func runs(wasted: [Int], seconds: [Double]) -> [RunReport] {
        zip(wasted, seconds).map { report(ScenarioMetrics(timeToCompleteSeconds: $1, bytesByInterface: ["wifi": 5], wastedBytes: $0)) }
    }

    @Test func valuesAreMediansAndAllowancesThreeTimesTheSpreadAboveAFloor() throws {
        // Wasted bytes vary by about a segment: the spread sets the allowance. Times
        // barely vary: the floor (1 s) does.
        let reports = Self.runs(wasted: [661_743, 1_020_243, 712_743, 691_727, 831_243], seconds: [30, 30.2, 29.9, 30.1, 30])
        let previous = Baseline(profile: "p", scenarios: [
            "outage": ["time_to_complete_s": MetricBaseline(value: 1, tolerance: 0.5, direction: .higherIsBetter)],
            "kept": ["goodput_bps": MetricBaseline(value: 5, tolerance: 0.3, direction: .higherIsBetter)],
        ])
        let baseline = try Baseline.calibrated(from: reports, previous: previous)
        let wasted = try #require(baseline.scenarios["outage"]?["wasted_bytes"])
        #expect(wasted.value == 712_743)
        #expect(wasted.absoluteSlack == 3 * (1_020_243 - 712_743))
        #expect(wasted.calibration?.samples == [661_743, 1_020_243, 712_743, 691_727, 831_243])
        // Wasted bytes fail only when they also more than double (a segment more in flight
        // at one cut is not a regression).
        #expect(wasted.tolerance == 1.0)
        let time = try #require(baseline.scenarios["outage"]?["time_to_complete_s"])
        #expect(time.value == 30 && time.absoluteSlack == 1 && time.tolerance == 0.25)
        // The direction someone set by hand is kept; informational metrics stay so.
        #expect(time.direction == .higherIsBetter)
        #expect(baseline.scenarios["outage"]?["bytes_wifi"]?.direction == .informational)
        #expect(baseline.scenarios["kept"] == previous.scenarios["kept"])
        #expect(baseline.calibration?.runs == 5 && baseline.calibration?.factor == 3)
        #expect(baseline.calibration?.machine == ["cpus": "2"] && baseline.profile == "p")
        // Every run it was made from passes it.
        for report in reports {
            let gate = GateComparison(report: report, baseline: baseline, onlyScenariosRun: true)
            #expect(gate.passed, "\(gate.lines(baselinePath: "b.json"))")
        }
        // A run worse than anything seen, by more than three spreads, fails.
        let worse = Self.report(ScenarioMetrics(timeToCompleteSeconds: 30, bytesByInterface: ["wifi": 5], wastedBytes: 2_000_000))
        #expect(GateComparison(report: worse, baseline: baseline, onlyScenariosRun: true).regressions.map(\.metric)
            == ["wasted_bytes"])
    }

    @Test func theCalibrationIsWrittenAndReadBack() throws {
        let baseline = try Baseline.calibrated(from: Self.runs(wasted: [1, 2, 3], seconds: [1, 2, 3]))
        let decoded = try Baseline.decode(baseline.encoded())
        #expect(decoded == baseline)
        let text = String(decoding: try baseline.encoded(), as: UTF8.self)
        #expect(text.contains("\"samples\"") && text.contains("\"madeAt\""))
        #expect(baseline.calibrationLines().contains("  outage / wasted_bytes: 2 (samples 1…3), allowed +262144"))
    }

    @Test func itRefusesFewRunsFailingRunsAndMetricsNotMeasuredEveryTime() {
        #expect(throws: CalibrationError.tooFewRuns(2)) {
            try Baseline.calibrated(from: Self.runs(wasted: [1, 2], seconds: [1, 2]))
        }
        var failing = Self.runs(wasted: [1, 2, 3], seconds: [1, 2, 3])
        failing[1] = Self.report(ScenarioMetrics(), verdicts: [Verdict(property: "integrity", outcome: .failed, summary: "seg3 differs")])
        #expect(throws: CalibrationError.failingRun(index: 1, findings: ["property failed outage / integrity: seg3 differs"])) {
            try Baseline.calibrated(from: failing)
        }
        var intermittent = Self.runs(wasted: [1, 2, 3], seconds: [1, 2, 3])
        intermittent[2] = Self.report(ScenarioMetrics(timeToCompleteSeconds: 1, bytesByInterface: ["wifi": 5]))
        #expect(throws: CalibrationError.intermittentMetrics(["outage / wasted_bytes (2 of 3 runs)"])) {
            try Baseline.calibrated(from: intermittent)
        }
        var nan = Self.runs(wasted: [1, 2, 3], seconds: [1, 2, 3])
        nan[0] = Self.report(ScenarioMetrics(timeToCompleteSeconds: .nan, bytesByInterface: ["wifi": 5], wastedBytes: 1))
        #expect(throws: CalibrationError.failingRun(index: 0, findings: ["invalid metric outage / time_to_complete_s = nan"])) {
            try Baseline.calibrated(from: nan)
        }
    }

    @Test func aMetricThatIsNotAFiniteNumberFailsTheGate() {
        let baseline = Baseline(profile: "p", scenarios: [
            "outage": ["goodput_bps": MetricBaseline(value: 5e6, tolerance: 0.25, direction: .higherIsBetter)]
        ])
        for value in [Double.nan, .infinity, -.infinity] {
            let run = Self.report(ScenarioMetrics(timeToCompleteSeconds: value, goodputBitsPerSecond: value))
            let gate = GateComparison(report: run, baseline: baseline)
            // Both the gated one and the one new to the baseline: neither can be judged.
            #expect(gate.invalidMetrics.map(\.metric) == ["goodput_bps", "time_to_complete_s"], "\(value)")
            #expect(!gate.passed)
            #expect(gate.lines(baselinePath: "b.json").contains { $0.contains("invalid metric    outage / goodput_bps") })
            #expect(gate.updateRefusal(baselinePath: "b.json")?.last?.contains("2 invalid metric") == true)
        }
    }

    @Test func aBaselineOfAnotherProfileAgentOrScenarioSetIsRefused() throws {
        let baseline = Baseline(profile: "flaky-wifi", scenarios: ["outage": [:], "crash": [:]], agent: "deadzone")
        #expect(baseline.refusal(profile: "flaky-wifi", agent: "deadzone", scenarios: ["outage", "crash"], path: "b") == nil)
        #expect(baseline.refusal(profile: "flaky-wifi", agent: "deadzone", scenarios: ["crash"], path: "b") == nil)
        let profile = try #require(baseline.refusal(profile: "edge", agent: "deadzone", scenarios: ["outage"], path: "b"))
        #expect(profile.contains("made with the profile flaky-wifi, this run uses edge") && profile.contains("--calibrate 5"))
        let agent = try #require(baseline.refusal(profile: "flaky-wifi", agent: "mine", scenarios: ["outage"], path: "b"))
        #expect(agent.contains(#"made with the agent "deadzone", not "mine""#))
        let set = try #require(baseline.refusal(profile: "flaky-wifi", agent: "deadzone", scenarios: ["outage", "new"], path: "b"))
        #expect(set.contains("another scenario set: it has no new (it has crash, outage)"))
        let unnamed = Baseline(scenarios: ["outage": [:]])
        #expect(unnamed.refusal(profile: "flaky-wifi", agent: "deadzone", scenarios: ["outage"], path: "b")?
            .contains("does not say which profile") == true)
    }
}
