import Testing
@testable import BenchCore

/// The capacity arithmetic of `RateTrace`: rates, deliverable bytes and finish
/// times, looping and not, with zero-rate gaps.
struct RateTraceTests {
    static let ms: UInt64 = 1_000_000
    static let s: UInt64 = 1_000_000_000

    /// 1 s at 8 kbit/s (1000 B), a 2 s outage, 1 s at 16 kbit/s (2000 B): 3000 B per 4 s pass.
    static func gapTrace(loops: Bool) -> RateTrace {
        RateTrace(name: "gap", segments: [
            .init(durationNanoseconds: 1 * s, bitsPerSecond: 8000),
            .init(durationNanoseconds: 2 * s, bitsPerSecond: 0),
            .init(durationNanoseconds: 1 * s, bitsPerSecond: 16000),
        ], loops: loops)
    }

    @Test func constantRate() {
        let trace = RateTrace(name: "c", segments: [.init(durationNanoseconds: 10 * Self.s, bitsPerSecond: 8000)])
        #expect(trace.periodNanoseconds == 10 * Self.s)
        #expect(trace.bytesPerPeriod == 10_000)
        #expect(trace.meanBitsPerSecond == 8000)
        #expect(trace.deliverableBytes(from: 0, to: 10 * Self.s) == 10_000)
        #expect(trace.deliverableBytes(from: 5 * Self.s, to: 5 * Self.s) == 0)
        #expect(trace.finishTime(start: 0, bytes: 500) == 500 * Self.ms)
        #expect(trace.finishTime(start: 9 * Self.s, bytes: 2000) == 11 * Self.s)  // into the next pass
        #expect(trace.finishTime(start: 3 * Self.s, bytes: 0) == 3 * Self.s)
    }

    @Test func zeroLengthSegmentsAreDropped() {
        let trace = RateTrace(name: "z", segments: [
            .init(durationNanoseconds: 0, bitsPerSecond: 1e9),
            .init(durationNanoseconds: Self.s, bitsPerSecond: 8),
        ])
        #expect(trace.segments.count == 1)
        #expect(trace.bitsPerSecond(at: 0) == 8)
    }

    @Test func ratesAndBytesAcrossPasses() {
        let trace = Self.gapTrace(loops: true)
        #expect(trace.bytesPerPeriod == 3000)
        #expect(trace.meanBitsPerSecond == 6000)
        #expect(trace.bitsPerSecond(at: 0) == 8000)
        #expect(trace.bitsPerSecond(at: 2 * Self.s) == 0)
        #expect(trace.bitsPerSecond(at: 3 * Self.s) == 16000)
        #expect(trace.bitsPerSecond(at: 4 * Self.s) == 8000)  // second pass
        // Half of the last segment (1000 B) plus half of the first of the next pass (500 B).
        #expect(trace.deliverableBytes(from: 3500 * Self.ms, to: 4500 * Self.ms) == 1500)
        #expect(trace.deliverableBytes(from: 0, to: 40 * Self.s) == 30_000)
    }

    @Test func finishTimeSkipsZeroRateGaps() {
        let trace = Self.gapTrace(loops: true)
        // Completes exactly as the first segment ends: it must not wait out the outage.
        #expect(trace.finishTime(start: 0, bytes: 1000) == 1 * Self.s)
        // Started inside the outage: nothing moves until 3 s, then 2000 B/s.
        #expect(trace.finishTime(start: 1500 * Self.ms, bytes: 1) == 3 * Self.s + 500_000)
        #expect(trace.finishTime(start: 0, bytes: 1500) == 3250 * Self.ms)
        #expect(trace.finishTime(start: 0, bytes: 3000) == 4 * Self.s)  // exactly one pass
        #expect(trace.finishTime(start: 0, bytes: 3001) == 4001 * Self.ms)  // 1 B at 1000 B/s
        #expect(trace.finishTime(start: 0, bytes: 4000) == 5 * Self.s)
        #expect(trace.finishTime(start: 0, bytes: 6000) == 8 * Self.s)
        #expect(trace.finishTime(start: 4 * Self.s, bytes: 1000) == 5 * Self.s)
    }

    @Test func nonLoopingHoldsTheLastRate() {
        let trace = Self.gapTrace(loops: false)
        #expect(trace.bitsPerSecond(at: 100 * Self.s) == 16000)
        #expect(trace.deliverableBytes(from: 0, to: 5 * Self.s) == 5000)
        #expect(trace.finishTime(start: 0, bytes: 3000) == 4 * Self.s)
        #expect(trace.finishTime(start: 0, bytes: 5000) == 5 * Self.s)
        #expect(trace.finishTime(start: 10 * Self.s, bytes: 2000) == 11 * Self.s)

        let dies = RateTrace(name: "dies", segments: [
            .init(durationNanoseconds: Self.s, bitsPerSecond: 8000),
            .init(durationNanoseconds: Self.s, bitsPerSecond: 0),
        ], loops: false)
        #expect(dies.finishTime(start: 0, bytes: 1000) == Self.s)
        #expect(dies.finishTime(start: 0, bytes: 1001) == nil)  // the link is dead for good
        #expect(dies.finishTime(start: 5 * Self.s, bytes: 1) == nil)
    }

    @Test func neverDeliveringAndAbsurdRequestsReturnNil() {
        let zero = RateTrace(name: "zero", segments: [.init(durationNanoseconds: Self.s, bitsPerSecond: 0)])
        #expect(zero.finishTime(start: 0, bytes: 1) == nil)
        let slow = RateTrace(name: "slow", segments: [.init(durationNanoseconds: Self.s, bitsPerSecond: 1e-6)])
        let slowOnce = RateTrace(name: "slow", segments: slow.segments, loops: false)
        for trace in [slow, slowOnce, Self.gapTrace(loops: true)] {
            #expect(trace.finishTime(start: 0, bytes: 1e30) == nil)  // beyond UInt64 nanoseconds
            #expect(trace.finishTime(start: 0, bytes: .infinity) == nil)
            #expect(trace.finishTime(start: 0, bytes: .nan) == nil)
            #expect(trace.finishTime(start: .max - 1, bytes: 1e12) == nil)
        }
    }

    /// finishTime is the earliest instant: by then `bytes` fit, one nanosecond earlier they do not.
    @Test(arguments: [1, 2, 3, 42] as [UInt64])
    func finishTimeIsEarliestSufficientInstant(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<50 {
            let segments = (0..<Int.random(in: 1...8, using: &random)).map { _ in
                RateTrace.Segment(
                    durationNanoseconds: UInt64.random(in: 1...5_000, using: &random) * Self.ms,
                    bitsPerSecond: random.chance(0.3) ? 0 : Double(Int.random(in: 1...10_000_000, using: &random)))
            }
            guard segments.contains(where: { $0.bitsPerSecond > 0 }) else { continue }
            let trace = RateTrace(name: "random", segments: segments, loops: random.chance(0.7))
            if !trace.loops && trace.segments.last?.bitsPerSecond == 0 { continue }
            for _ in 0..<20 {
                let start = UInt64.random(in: 0...(3 * trace.periodNanoseconds), using: &random)
                let bytes = Double(Int.random(in: 1...2_000_000, using: &random))
                guard let finish = trace.finishTime(start: start, bytes: bytes) else {
                    Issue.record("a trace that delivers must finish: \(trace.segments), start \(start), \(bytes) B")
                    continue
                }
                let tolerance = 1e-6 * bytes + 1e-3
                #expect(finish >= start)
                #expect(trace.deliverableBytes(from: start, to: finish) >= bytes - tolerance)
                #expect(trace.deliverableBytes(from: start, to: finish - 1) < bytes + tolerance)
            }
        }
    }
}
