import BenchCore
import Foundation
@testable import ResilienceHarness
import Testing

/// What lets scenarios play concurrently on one time axis: each scenario's collector
/// tags its entries and keeps its own live view; the load each one saw is recorded (the
/// harness clock, the timer thread and the pool apart) and a failure under load says so
/// without changing the outcome.
@Suite struct ConcurrentRunTests {
    @Test func aScenariosCollectorSharesTheEpochTagsItsEntriesAndKeepsItsOwnLiveView() {
        let clock = ManualClock(startingAt: 1_000)
        let run = TraceCollector(clock: clock)
        let a = run.scenario("a"), b = run.scenario("b")
        #expect(a.epoch == run.epoch && b.epoch == run.epoch && a.epochWallClock == run.epochWallClock)
        clock.advance(by: .nanoseconds(50))
        a.harness(.note("from a"))
        b.agent(.stateChanged(download: "d", from: .requested, to: .downloading), at: 1_060)
        b.absorb(license: [LicenseEvent(atNanoseconds: 1_070, kind: .certificateServed)])
        #expect(a.entries.map(\.scenario) == ["a"] && a.entries.map(\.t) == [50])
        #expect(b.entries.map(\.scenario) == ["b", "b"] && b.entries.map(\.t) == [60, 70])
        #expect(a.live.states.isEmpty && b.live.states["d"] == .downloading)
        #expect(run.entries.isEmpty, "the run's own collector holds nothing of its scenarios'")
    }

    @Test func theLoadIsTheMostScenariosAlongsideAndTheWorstOfEachProbe() {
        let meter = LoadMeter()
        #expect(meter.load == ScenarioLoad(alongside: 0, harnessClockLateMaxSeconds: 0))
        meter.tick(playing: 1)
        meter.tick(playing: 4)
        meter.tick(playing: 2)
        meter.harnessClock.record(timerThread: .milliseconds(3), executor: .milliseconds(280))
        meter.harnessClock.record(timerThread: .milliseconds(1), executor: .milliseconds(12))
        meter.pool.record(timerThread: .milliseconds(7), executor: .milliseconds(1_500))
        let load = meter.load
        #expect(load == ScenarioLoad(
            alongside: 3, harnessClockLateMaxSeconds: 0.28, timerThreadLateMaxSeconds: 0.007, poolLateMaxSeconds: 1.5))
        #expect(load.mayStretchBounds)
        #expect(load.description
            == "with 3 other scenarios, harness clock ≤ 280 ms late (timer thread ≤ 7 ms, cooperative pool ≤ 1500 ms)")
        #expect(load.lateBecause == "the scenario's own executor (its timer thread woke on time)")
        let machine = ScenarioLoad(alongside: 0, harnessClockLateMaxSeconds: 0.4, timerThreadLateMaxSeconds: 0.39)
        #expect(machine.lateBecause == "the machine (its timer thread woke as late)")
        #expect(ScenarioLoad(alongside: 0, harnessClockLateMaxSeconds: 0.1).lateBecause == nil, "on time: nobody to blame")
    }

    @Test func aReportOfBeforeTheProbesReadsItsTimerAsTheHarnessClock() throws {
        let old = #"{"alongside": 2, "timerLagMaxSeconds": 0.3}"#
        let load = try JSONDecoder().decode(ScenarioLoad.self, from: Data(old.utf8))
        #expect(load == ScenarioLoad(alongside: 2, harnessClockLateMaxSeconds: 0.3))
        let again = try JSONDecoder().decode(ScenarioLoad.self, from: JSONEncoder().encode(load))
        #expect(again == load)
    }

    static func result(load: ScenarioLoad?) -> ScenarioResult {
        ScenarioResult(
            name: "s", summary: "", verdicts: [
                Verdict(property: "liveness", outcome: .failed, summary: "a stall of 9 s went unnoticed"),
                Verdict(property: "integrity", outcome: .passed, summary: "every byte matched"),
            ], metrics: ScenarioMetrics(), startNanoseconds: 0, endNanoseconds: 1,
            preconditions: [PreconditionResult(name: "p", met: false, detail: "no kill with bytes in flight")], load: load)
    }

    @Test func aFailureUnderLoadSaysSoAndStaysAFailure() {
        let loaded = Self.result(load: ScenarioLoad(alongside: 5, harnessClockLateMaxSeconds: 0.4, timerThreadLateMaxSeconds: 0.38)).notingLoad()
        #expect(loaded.verdicts[0].failed && loaded.verdicts[0].summary.contains("Under load: the scenario ran with 5 other"))
        #expect(loaded.verdicts[0].summary.contains("late because of the machine"))
        #expect(loaded.verdicts[1].summary == "every byte matched", "a verdict that held is left as it is")
        #expect(!loaded.preconditions[0].met && loaded.preconditions[0].detail.contains("--jobs 1"))
        #expect(!loaded.passed)
        let calm = Self.result(load: ScenarioLoad(alongside: 5, harnessClockLateMaxSeconds: 0.01))
        #expect(calm.notingLoad() == calm, "a timer on time stretched no bound: nothing to say")
        #expect(Self.result(load: nil).notingLoad() == Self.result(load: nil))
    }

    @Test func theLongestScenarioStartsFirstWhenNotAllCanPlayAtOnce() {
        let scenarios = [8.0, 45, 20, 45].enumerated().map { index, target in
            Scenario(name: "s\(index)", summary: "", asserts: [], targetSeconds: target) { _ in }
        }
        #expect(HarnessRunner.startOrder(scenarios, jobs: 2) == [1, 3, 2, 0])
        #expect(HarnessRunner.startOrder(scenarios, jobs: 1) == [0, 1, 2, 3], "one at a time: file order")
        #expect(HarnessRunner.startOrder(scenarios, jobs: 4) == [0, 1, 2, 3], "all at once: file order")
    }

    @Test func aBaselineOfAnotherConcurrencySaysSoAndOneOfTheSameSaysNothing() {
        var baseline = Baseline(profile: "flaky-wifi")
        #expect(baseline.concurrencyNote(jobs: 1) == nil, "a baseline that does not say played one at a time")
        #expect(baseline.concurrencyNote(jobs: 7)?.contains("made playing 1 scenario at once, this run 7") == true)
        baseline.jobs = 7
        #expect(baseline.concurrencyNote(jobs: 7) == nil)
    }
}

/// A regression of a scenario that played under load says so, and still fails the gate.
@Suite struct GateUnderLoadTests {
    static func report(lag: Double) -> RunReport {
        var report = GateComparisonTests.report(metrics: ScenarioMetrics(timeToCompleteSeconds: 60))
        report.scenarios[0].load = ScenarioLoad(alongside: 6, harnessClockLateMaxSeconds: lag)
        return report
    }

    static let baseline = Baseline(scenarios: [
        "outage": ["time_to_complete_s": MetricBaseline(value: 40, tolerance: 0.25, direction: .lowerIsBetter)]
    ])

    @Test func aRegressionUnderLoadSaysSoAndStillFails() throws {
        let loaded = GateComparison(report: Self.report(lag: 0.785), baseline: Self.baseline)
        #expect(!loaded.passed && loaded.regressions.count == 1)
        let line = try #require(loaded.lines(baselinePath: "b").first { $0.contains("regression ") })
        #expect(line.contains("[under load: the scenario ran with 6 other scenarios, harness clock ≤ 785 ms late"), "\(line)")
        let calm = GateComparison(report: Self.report(lag: 0.02), baseline: Self.baseline)
        #expect(!calm.passed)
        #expect(!calm.lines(baselinePath: "b").joined().contains("under load"))
        // A comparison written before `underLoad` existed still reads.
        var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(loaded)) as? [String: Any] ?? [:]
        json["underLoad"] = nil
        let old = try JSONDecoder().decode(GateComparison.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(old.underLoad.isEmpty && old.regressions.count == 1)
    }
}

/// A regression measured while other processes took much of the machine's CPU says so,
/// and still fails the gate.
@Suite struct GateOnABusyMachineTests {
    static func comparison(othersShare: Double?) -> GateComparison {
        var report = GateUnderLoadTests.report(lag: 0.02)
        report.run.othersCPUShare = othersShare
        return GateComparison(report: report, baseline: GateUnderLoadTests.baseline)
    }

    @Test func aRegressionOnABusyMachineSaysSoAndStillFails() throws {
        let busy = Self.comparison(othersShare: 0.384)
        #expect(!busy.passed && busy.regressions.count == 1)
        let line = try #require(busy.lines(baselinePath: "b").first { $0.contains("regression ") })
        #expect(line.contains("[the machine was busy: other processes used 38 % of its CPU while the run played"), "\(line)")
        for calm in [Self.comparison(othersShare: 0.05), Self.comparison(othersShare: nil)] {
            #expect(!calm.passed && !calm.lines(baselinePath: "b").joined().contains("machine was busy"))
        }
        // The share travels with the comparison; one written before it existed still reads.
        let encoded = try JSONEncoder().encode(busy)
        #expect(try JSONDecoder().decode(GateComparison.self, from: encoded).othersCPUShare == 0.384)
        var json = try JSONSerialization.jsonObject(with: encoded) as? [String: Any] ?? [:]
        json["othersCPUShare"] = nil
        let old = try JSONDecoder().decode(GateComparison.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(old.othersCPUShare == nil && old.regressions.count == 1)
    }
}
