import Foundation
import Testing
@testable import Performance

/// The gate's decision: each ratio against its floor, no silent pass for a ratio that is
/// missing, NaN or infinite or for a configuration without thresholds, and the lines that
/// name each failure with its value and threshold.
@Suite struct PerfGateVerdictTests {
    static let floors: [PerfGateRatio: Double] = [.proxyOverForwarder: 0.25, .proxyOverDirect: 0.1, .engineGoodput: 0.6]
    static let thresholds = PerfGateThresholds(path: "Perf/t.yaml", sets: [.debug: .floors(floors), .release: .notMeasured])
    static let good: [PerfGateRatio: Double] = [.proxyOverForwarder: 0.5, .proxyOverDirect: 0.3, .engineGoodput: 0.95]

    func judge(_ measured: [PerfGateRatio: Double], _ configuration: PerfBuildConfiguration = .debug) -> PerfGateVerdict {
        PerfGateVerdict.judge(measured: measured, thresholds: Self.thresholds, configuration: configuration)
    }

    @Test func everyRatioAtOrAboveItsFloorPasses() {
        let verdict = judge(Self.good)
        #expect(verdict.passed)
        #expect(verdict.failures.isEmpty)
        #expect(verdict.checks.map(\.ratio) == PerfGateRatio.allCases)
        #expect(verdict.lines.last == "bench perf gate: passed (3 of 3 ratios at or above their thresholds)")
        // Exactly at the floor passes (≥).
        #expect(judge([.proxyOverForwarder: 0.25, .proxyOverDirect: 0.1, .engineGoodput: 0.6]).passed)
    }

    @Test func aRatioBelowItsFloorFailsAndIsNamedWithValueAndThreshold() {
        var measured = Self.good
        measured[.engineGoodput] = 0.41
        let verdict = judge(measured)
        #expect(!verdict.passed)
        #expect(verdict.failures.map(\.ratio) == [.engineGoodput])
        #expect(verdict.failures.first?.measured == 0.41)
        #expect(verdict.failures.first?.problem == "below its threshold")
        #expect(verdict.lines.contains("  FAIL  engine-goodput        0.410 < threshold 0.600  (engine goodput / shaped link rate)"))
        #expect(verdict.lines.contains("  PASS  proxy-over-forwarder  0.500 ≥ 0.250  (conditioner / bare forwarder, unshaped throughput)"))
        #expect(verdict.lines.last == "bench perf gate: FAILED (1 of 3 ratios): engine-goodput 0.410 < 0.600")
    }

    @Test func everyFailedRatioIsNamed() {
        let verdict = judge([.proxyOverForwarder: 0.2, .proxyOverDirect: 0.05, .engineGoodput: 0.9])
        #expect(verdict.lines.last
                == "bench perf gate: FAILED (2 of 3 ratios): proxy-over-forwarder 0.200 < 0.250; proxy-over-direct 0.050 < 0.100")
    }

    /// A measurement that failed leaves its ratio out: that is a failure, not a pass.
    @Test func aMissingRatioFails() {
        var measured = Self.good
        measured[.proxyOverDirect] = nil
        let verdict = judge(measured)
        #expect(!verdict.passed)
        #expect(verdict.failures.map(\.ratio) == [.proxyOverDirect])
        #expect(verdict.failures.first?.measured == nil)
        #expect(verdict.lines.last == "bench perf gate: FAILED (1 of 3 ratios): proxy-over-direct not measured, threshold 0.100")
        #expect(!judge([:]).passed)
        #expect(judge([:]).failures.count == 3)
    }

    @Test func aRatioThatIsNotAFiniteNumberFails() {
        for bad in [Double.nan, .infinity, -.infinity] {
            var measured = Self.good
            measured[.proxyOverForwarder] = bad
            let verdict = judge(measured)
            #expect(!verdict.passed, "\(bad)")
            #expect(verdict.failures.first?.problem == "not a finite number (\(bad))")
            #expect(verdict.failures.first?.measured == nil)
        }
    }

    /// A configuration the file marks `not measured` is not gated, and the gate says so and fails.
    @Test func aConfigurationWithoutThresholdsFailsSayingSo() {
        let verdict = judge(Self.good, .release)
        #expect(!verdict.hasThresholds)
        #expect(!verdict.passed)
        #expect(verdict.lines.last?.hasPrefix("bench perf gate: FAILED: Perf/t.yaml marks the release thresholds `not measured`") == true)
    }

    /// The report fails when a section could not be measured, even if its ratios passed, and
    /// its JSON holds the ratios and the checks.
    @Test func theReportFailsOnASectionErrorAndEncodes() throws {
        let machine = PerfMachineLoad(busy: 0.1, loadAverage: 1)
        let fine = PerfSection(id: "engine", title: "Engine", method: "m")
        var broken = fine
        broken.error = "bench download: exit 1"
        let verdict = judge(Self.good)
        let passing = PerfGateRunReport(quick: true, cpus: 2, machine: machine, sections: [fine], ratios: Self.good, verdict: verdict)
        #expect(!passing.failed)
        #expect(passing.verdictLines == verdict.lines)
        #expect(PerfGateRunReport(quick: true, cpus: 2, machine: machine, sections: [broken], ratios: Self.good,
                                  verdict: verdict).failed)
        var withNaN = Self.good
        withNaN[.engineGoodput] = .nan
        let report = PerfGateRunReport(quick: true, cpus: 2, machine: machine, sections: [fine], ratios: withNaN,
                                       verdict: judge(withNaN))
        #expect(report.failed)
        let json = try JSONSerialization.jsonObject(with: report.jsonData()) as? [String: Any]
        #expect((json?["ratios"] as? [String: Double])?["proxy-over-forwarder"] == 0.5)
        #expect((json?["ratios"] as? [String: Double])?["engine-goodput"] == nil)
        #expect(json?["passed"] as? Bool == false)
    }

    /// A failure on a busy machine says the load may be the cause; a pass, or a quiet machine, does not.
    @Test func aFailureOnABusyMachineSaysSo() {
        var low = Self.good
        low[.proxyOverDirect] = 0.05
        func report(_ measured: [PerfGateRatio: Double], busy: Double, load: Double) -> PerfGateRunReport {
            PerfGateRunReport(quick: true, cpus: 2, machine: PerfMachineLoad(busy: busy, loadAverage: load), sections: [],
                              ratios: measured, verdict: judge(measured))
        }
        let busy = report(low, busy: 0.9, load: 1).verdictLines
        #expect(busy.last?.hasPrefix("note: the machine was busy before the run (90% of all CPUs, load average 1.00 on 2 CPUs)") == true)
        #expect(report(low, busy: 0.1, load: 6).verdictLines.last?.hasPrefix("note: the machine was busy") == true)
        #expect(report(low, busy: 0.1, load: 1).verdictLines == judge(low).lines)
        #expect(report(Self.good, busy: 0.9, load: 6).verdictLines == judge(Self.good).lines)
    }

    /// Throughput rounds → each path's best round and the ratios of the bests; a path that
    /// failed in one round still has its others, and a path never measured gives no ratio.
    @Test func throughputRatiosDivideEachPathsBestRound() {
        let rounds: [PerfGateThroughput.Round] = [
            [.direct: 20, .bareForwarder: 10, .conditioner: 5],
            [.direct: 10, .bareForwarder: 8, .conditioner: 6],
            [.direct: 25, .conditioner: 4],
        ]
        let (figures, ratios) = PerfGateThroughput.figures(rounds, floors: Self.floors)
        #expect(ratios == [.proxyOverForwarder: 0.6, .proxyOverDirect: 0.24])
        #expect(figures.map(\.label) == [
            "direct, best", "bare forwarder, best", "conditioner, best", "conditioner / forwarder (proxy-over-forwarder)",
            "conditioner / direct (proxy-over-direct)", "forwarder / direct (not gated)",
        ])
        #expect(figures[0].display == "25.00 Gbit/s (rounds 20.00, 10.00, 25.00)")
        #expect(figures[5].display == "0.400")
        #expect(figures.filter { $0.target != nil }.map(\.pass) == [true, true])
        #expect(PerfGateThroughput.figures(rounds, floors: [.proxyOverDirect: 0.3]).0[4].pass == false)
        let noForwarder = PerfGateThroughput.figures([[.direct: 20, .conditioner: 5]], floors: nil)
        #expect(noForwarder.1 == [.proxyOverDirect: 0.25])
        #expect(noForwarder.0.allSatisfy { $0.target == nil })
    }
}
