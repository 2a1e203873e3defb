import BenchCore
import Testing
@testable import LinkConditioner

@Suite("LinkChain: rate traces")
struct LinkChainTraceTests {
    /// 2 s at 8 Mbit/s, a 1 s outage, then 4 Mbit/s (held after the end: no loop).
    let tunnel = RateTrace(
        name: "tunnel",
        segments: [
            .init(durationNanoseconds: 2 * second, bitsPerSecond: 8e6),
            .init(durationNanoseconds: 1 * second, bitsPerSecond: 0),
            .init(durationNanoseconds: 2 * second, bitsPerSecond: 4e6),
        ],
        loops: false)

    @Test("the rate follows the trace, and nothing is delivered during an outage")
    func followsTraceWithOutage() {
        var link = ChainHarness(LinkDirectionParameters(rate: .trace(tunnel)))
        var rng = SeededGenerator(seed: 2)
        link.run(until: 6 * second, lateness: 2 * millisecond, backlogged: [1], rng: &rng)
        // 8 Mbit/s for 2 s = 2 MB (the quantum cut by the outage finishes after it).
        let first = link.delivered(1, after: 0, upTo: 2 * second)
        #expect(first <= 2_000_000 && first > 2_000_000 - 2 * BottleneckSettings.mtu)
        // The outage: not one byte (after the late tick that hands over what finished by 2 s).
        #expect(link.delivered(1, after: 2 * second + 3 * millisecond, upTo: 3 * second) == 0)
        // 4 Mbit/s for 2 s = 1 MB (plus the quantum that waited out the outage), then 4 Mbit/s on.
        let third = link.delivered(1, after: 3 * second, upTo: 5 * second)
        #expect(abs(third - 1_000_000) <= 2 * BottleneckSettings.mtu)
        let after = link.delivered(1, after: 5 * second, upTo: 6 * second)
        #expect(abs(after - 500_000) <= 2 * BottleneckSettings.mtu)
    }

    @Test("a trace counts from when it is switched in; the same trace keeps its offset")
    func traceOffsetsStartAtSwitchIn() {
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(8)))
        var rng = SeededGenerator(seed: 3)
        link.run(until: 10 * second, backlogged: [1], rng: &rng)
        // Switched in at 10 s: the outage is at 12-13 s.
        link.update(LinkDirectionParameters(rate: .trace(tunnel)))
        link.run(until: 11 * second, backlogged: [1], rng: &rng)
        // At 11 s the delay changes but the trace is the same: it keeps running.
        link.update(LinkDirectionParameters(rate: .trace(tunnel), delay: .milliseconds(5)))
        link.run(until: 14 * second, backlogged: [1], rng: &rng)
        #expect(link.delivered(1, after: 11 * second + 5 * millisecond, upTo: 12 * second) > 900_000)
        #expect(link.delivered(1, after: 12 * second + 5 * millisecond, upTo: 13 * second + 5 * millisecond) == 0)
        #expect(link.delivered(1, after: 13 * second + 5 * millisecond, upTo: 14 * second) > 400_000)
    }

    @Test("switching to a different trace restarts at offset zero")
    func differentTraceRestarts() {
        let other = RateTrace(
            name: "other",
            segments: [.init(durationNanoseconds: 500 * millisecond, bitsPerSecond: 0), .init(durationNanoseconds: second, bitsPerSecond: 8e6)],
            loops: false)
        var link = ChainHarness(LinkDirectionParameters(rate: .trace(tunnel)))
        var rng = SeededGenerator(seed: 4)
        link.run(until: 1 * second, backlogged: [1], rng: &rng)
        link.update(LinkDirectionParameters(rate: .trace(other)))
        link.run(until: 2 * second, backlogged: [1], rng: &rng)
        // The new trace starts with its own 500 ms outage at 1 s.
        #expect(link.delivered(1, after: second, upTo: 1500 * millisecond) == 0)
        #expect(link.delivered(1, after: 1500 * millisecond, upTo: 2 * second) > 490_000)
    }

    @Test("a looping trace repeats: its mean rate holds over many periods")
    func loopingTraceMeanRate() {
        // 50 ms at 10 Mbit/s, 50 ms dead: a mean of 5 Mbit/s.
        let blinking = RateTrace(
            name: "blinking",
            segments: [.init(durationNanoseconds: 50 * millisecond, bitsPerSecond: 10e6), .init(durationNanoseconds: 50 * millisecond, bitsPerSecond: 0)])
        var link = ChainHarness(LinkDirectionParameters(rate: .trace(blinking)))
        var rng = SeededGenerator(seed: 5)
        link.run(until: 10 * second, lateness: 3 * millisecond, backlogged: [1], rng: &rng)
        let megabits = Double(link.delivered[1, default: 0]) * 8 / 10 / 1e6
        #expect(abs(megabits / 5 - 1) < 0.01)
        // And every dead half of a period is silent.
        for period in 0..<UInt64(100) {
            let dead = period * 100 * millisecond + 50 * millisecond
            #expect(link.delivered(1, after: dead + 3 * millisecond, upTo: dead + 50 * millisecond) == 0)
        }
    }
}
