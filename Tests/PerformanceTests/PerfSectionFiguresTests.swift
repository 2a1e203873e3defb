import FixtureOrigin
import Testing
@testable import Performance

/// Each section's figures from known measurements: the value, how it is shown, and the verdict.
@Suite struct PerfSectionFiguresTests {
    /// Rate error: achieved / target, shown with the achieved rate, within 1 ± 0.02.
    @Test func rateAccuracyIsAchievedOverTarget() {
        let close = PerfShaping.rateFigure(target: 10e6, achieved: 9.9e6)
        #expect(close.label == "10.0 Mbit/s achieved/target")
        #expect(abs(close.value - 0.99) < 1e-12)
        #expect(close.display == "0.9900 (9.90 Mbit/s)")
        #expect(close.pass == true)
        #expect(PerfShaping.rateFigure(target: 1e6, achieved: 1.03e6).pass == false)
        #expect(PerfShaping.rateFigure(target: 50e6, achieved: 48.5e6).pass == false)
        #expect(PerfShaping.rateFigure(target: 50e6, achieved: 49.5e6).pass == true)
    }

    @Test func fairnessFiguresFromEachConnectionsBytes() {
        // 4 connections over 2 s: 10 Mbit/s in all, shared 30/20/25/25.
        let figures = PerfShaping.fairnessFigures(bytes: [750_000, 500_000, 625_000, 625_000], window: 2)
        #expect(figures.map(\.label) == ["Jain index", "shares", "aggregate / 10 Mbit/s"])
        #expect(figures[0].display == "0.9804")
        #expect(figures[0].pass == true)
        #expect(figures[1].display == "30.0% 20.0% 25.0% 25.0%")
        #expect(abs(figures[1].value - 20) < 1e-9)
        #expect(figures[2].display == "1.0000 (10.0 Mbit/s)")
        let starved = PerfShaping.fairnessFigures(bytes: [2_000_000, 100_000, 100_000, 100_000], window: 2)
        #expect(starved[0].pass == false)
        let silent = PerfShaping.fairnessFigures(bytes: [0, 0, 0, 0], window: 2)
        #expect(silent[0].value == 0)
        #expect(silent[0].pass == false)
        #expect(silent[1].display == "0.0% 0.0% 0.0% 0.0%")
    }

    @Test func delayErrorIsJudgedOnItsP99() {
        // 100 errors: 98 of 0.3 ms, then 1.9 and 2.4: p99 is the 99th, 1.9 ms.
        let errors = [Double](repeating: 0.3, count: 98) + [1.9, 2.4]
        let (figures, notes) = PerfDelay.delayFigures(errors: errors, direct: [0.01, 0.02], lateness: [0.05, 0.1])
        #expect(figures[1].label == "error p99")
        #expect(figures[1].value == 1.9)
        #expect(figures[1].pass == true)
        #expect(figures[2].display == "0.300 / 2.400 ms")
        #expect(figures[3].display == "0.010 / 0.020 ms")
        #expect(notes == ["error histogram (ms): <0.25 0, 0.25-0.5 98, 0.5-1 0, 1-2 1, 2-5 1, ≥5 0"])
        let late = PerfDelay.delayFigures(errors: errors + [2.5, 2.5], direct: [], lateness: [])
        #expect(late.0[1].value == 2.5)  // rank 101 of 102
        #expect(late.0[1].pass == false)
        let early = PerfDelay.delayFigures(errors: [-0.2, 0.4], direct: [], lateness: [])
        #expect(early.1.last == "some messages arrived before the configured delay had elapsed (min error < 0)")
    }

    @Test func throughputRatioIsProxiedOverDirect() {
        let direct = PerfThroughput.Measurement(bytes: 4_100_000_000, seconds: 2)  // 16.4 Gbit/s
        let proxied = PerfThroughput.Measurement(bytes: 1_685_000_000, seconds: 2)  // 6.74 Gbit/s
        let figures = PerfThroughput.figures(direct: direct, proxied: proxied)
        #expect(figures[1].display == "6.74 Gbit/s")
        #expect(figures[1].pass == false)
        #expect(figures[2].display == "0.41")
        #expect(figures[2].pass == true)
        let nothing = PerfThroughput.figures(direct: .init(bytes: 0, seconds: 0), proxied: proxied)
        #expect(nothing[0].value == 0)
        #expect(nothing[2].value == 0)
        #expect(nothing[2].pass == false)
    }

    /// Only the pinned run's added p50 is judged (≤ 30 µs); added = proxy − direct.
    @Test func latencyAddedIsProxyMinusDirect() {
        let pair = PerfLatency.Pair(direct: [10, 12, 14, 40], proxy: [30, 36, 44, 90], cpu: 0,
                                    proxyCPU: (loop: 5, echo: 4, client: 4), directCPU: (echo: 4, client: 4))
        let (pinned, notes) = PerfLatency.figures(pair, pinned: true)
        #expect(pinned.map(\.label) == ["pinned direct p50 / p99", "pinned proxy p50 / p99", "pinned added p50",
                                        "pinned added p99"])
        #expect(pinned[2].value == 24)
        #expect(pinned[2].pass == true)
        #expect(pinned[3].value == 50)
        #expect(notes.first == "pinned run measured on cpu 0")
        let (unpinned, _) = PerfLatency.figures(pair, pinned: false)
        #expect(unpinned[2].target == nil)
        let slow = PerfLatency.Pair(direct: [10], proxy: [41], cpu: 0, proxyCPU: (0, 0, 0), directCPU: (0, 0))
        #expect(PerfLatency.figures(slow, pinned: true).0[2].pass == false)
    }

    @Test func originFiguresCountOnlyGoodResponses() {
        let load = PerfOriginHarness.loads[0]  // 1 MB segments, ≥ 2 Gbit/s
        let length = 1_000_000
        // 1,000 responses in 2 s, 10 of them errors: 990 × 1 MB × 8 / 2 s = 3.96 Gbit/s.
        let run = wrk(requests: 1000, bytes: 1000 * (length + 200), statusErrors: 10)
        var notes: [String] = []
        let figures = PerfOriginHarness.figures(load, warm: wrk(requests: 50, bytes: 50 * length), run: run, length: length,
                                                originCPU: 1, connections: 32, notes: &notes)
        #expect(figures[0].label == "body throughput")
        #expect(abs(figures[0].value - 3.96) < 1e-9)
        #expect(figures[0].pass == true)
        #expect(figures[1].value == 495)
        let errors = figures.last!
        #expect(errors.label == "errors (non-2xx, socket, length)")
        #expect(errors.value == 10)
        #expect(errors.pass == false)
        #expect(notes.last!.hasPrefix("errors: warm-up non-2xx 0"))
    }

    /// Bytes read that cannot be the responses counted (fewer than their bodies) are an error.
    @Test func originFiguresFlagImplausibleByteCounts() {
        let load = PerfOriginHarness.loads[1]  // media playlist, ≥ 10000 req/s
        var notes: [String] = []
        let run = wrk(requests: 30_000, bytes: 30_000 * 100)
        let figures = PerfOriginHarness.figures(load, warm: wrk(requests: 1, bytes: 500), run: run, length: 500,
                                                originCPU: 1, connections: 32, notes: &notes)
        #expect(figures[0].value == 15_000)
        #expect(figures[0].pass == true)
        #expect(figures.last!.value == 1)
        #expect(notes.last!.hasSuffix("bytes read do not match 30000 responses of 500 bytes"))
    }

    private func wrk(requests: Int, bytes: Int, statusErrors: Int = 0) -> PerfWrkResult {
        PerfWrkResult(requests: requests, bytes: bytes, durationMicroseconds: 2_000_000, connectErrors: 0, readErrors: 0,
                      writeErrors: 0, statusErrors: statusErrors, timeouts: 0, non2xx: 0, badLength: 0,
                      latencyP50Microseconds: 900, latencyP99Microseconds: 4000)
    }
}
