import Testing
@testable import BenchCore

/// `Profile.starting(at:)` and `RateTrace.starting(at:)`: a profile played from a point
/// of its timeline starts as its timeline had left it there, and what follows comes
/// that much earlier.
struct ProfileOffsetTests {
    static let s: UInt64 = 1_000_000_000

    static func link(_ rate: RateSpec) -> InterfaceLink {
        InterfaceLink(downlink: LinkDirectionParameters(rate: rate))
    }

    static let profile = Profile(
        name: "p", duration: .seconds(100),
        initial: [.wifi: InterfaceSetup(link: link(.constant(bitsPerSecond: 10e6)))],
        timeline: [
            Phase(at: .seconds(10), label: "drop", changes: [.wifi: InterfaceSetup(state: .down(.reset), link: link(.constant(bitsPerSecond: 10e6)))]),
            Phase(at: .seconds(20), label: "back slow", changes: [.wifi: InterfaceSetup(link: link(.constant(bitsPerSecond: 1e6)))],
                  pathUpdate: .withheld),
            Phase(at: .seconds(40), label: "cell down", changes: [.cellular: InterfaceSetup(state: .down(.blackhole))]),
        ],
        origin: [
            OriginFaultWindow(at: .seconds(5), duration: .seconds(5), fault: .status(code: 503, retryAfter: nil)),
            OriginFaultWindow(at: .seconds(25), duration: .seconds(10), fault: .status(code: 500, retryAfter: nil)),
            OriginFaultWindow(at: .seconds(50), duration: .seconds(5), fault: .status(code: 404, retryAfter: nil)),
        ])

    @Test func zeroIsTheProfileItself() {
        #expect(Self.profile.starting(at: .zero) == Self.profile)
    }

    @Test func interfacesStartAsThePhasesBeforeTheOffsetLeftThem() {
        let late = Self.profile.starting(at: .seconds(30))
        #expect(late.initial[.wifi] == InterfaceSetup(link: Self.link(.constant(bitsPerSecond: 1e6))))
        #expect(late.initial[.cellular] == Self.profile.initial[.cellular])
        let during = Self.profile.starting(at: .seconds(15))
        #expect(during.initial[.wifi]?.state == .down(.reset))
        // A phase exactly at the offset has happened.
        #expect(Self.profile.starting(at: .seconds(20)).initial[.wifi]?.link.downlink.rate == .constant(bitsPerSecond: 1e6))
    }

    @Test func laterPhasesAndWindowsComeEarlierAndEarlierOnesGo() {
        let late = Self.profile.starting(at: .seconds(30))
        #expect(late.timeline.map(\.at) == [.seconds(10)])
        #expect(late.timeline.map(\.label) == ["cell down"])
        // The window open at 30 s (25–35 s) starts at 0 with its last 5 s; 5–10 s is gone.
        #expect(late.origin.map(\.at) == [.zero, .seconds(20)])
        #expect(late.origin.map(\.duration) == [.seconds(5), .seconds(5)])
        #expect(late.duration == .seconds(70))
        #expect(Self.profile.starting(at: .seconds(200)).duration == .zero)
        #expect(late.name == "p" && late.seed == Self.profile.seed)
    }

    /// 1 s at 8 kbit/s, 2 s at 0, 1 s at 16 kbit/s.
    static let trace = RateTrace(name: "t", segments: [
        .init(durationNanoseconds: 1 * s, bitsPerSecond: 8000),
        .init(durationNanoseconds: 2 * s, bitsPerSecond: 0),
        .init(durationNanoseconds: 1 * s, bitsPerSecond: 16000),
    ])

    @Test func aLoopingTraceIsRotatedSoItPlaysTheSameRatesAtTheSameTimes() {
        for offset: UInt64 in [0, 500_000_000, 1 * Self.s, 2_500_000_000, 4 * Self.s, 9_700_000_000] {
            let rotated = Self.trace.starting(at: offset)
            #expect(rotated.periodNanoseconds == Self.trace.periodNanoseconds)
            for t in stride(from: UInt64(0), to: 8 * Self.s, by: 250_000_000) {
                #expect(rotated.bitsPerSecond(at: t) == Self.trace.bitsPerSecond(at: t + offset), "offset \(offset), t \(t)")
                #expect(abs(rotated.deliverableBytes(from: 0, to: t) - Self.trace.deliverableBytes(from: offset, to: offset + t)) < 1e-6)
            }
        }
    }

    @Test func aTraceThatDoesNotLoopLosesWhatItPlayedAndHoldsItsLastRateAfterItsEnd() {
        let once = RateTrace(name: "once", segments: Self.trace.segments, loops: false)
        let rotated = once.starting(at: 2 * Self.s)
        #expect(rotated.periodNanoseconds == 2 * Self.s)
        #expect(rotated.bitsPerSecond(at: 0) == 0)
        #expect(rotated.bitsPerSecond(at: 1_500_000_000) == 16000)
        #expect(rotated.bitsPerSecond(at: 60 * Self.s) == 16000)
        #expect(once.starting(at: 60 * Self.s).bitsPerSecond(at: 0) == 16000)
    }

    @Test func aTraceInForceContinuesWhereItWasAndASamePhaseKeepsIt() {
        let traced = Profile(
            name: "t",
            initial: [.cellular: InterfaceSetup(link: Self.link(.constant(bitsPerSecond: 1e6)))],
            timeline: [
                Phase(at: .seconds(10), changes: [.cellular: InterfaceSetup(link: Self.link(.trace(Self.trace)))]),
                Phase(at: .seconds(20), changes: [.cellular: InterfaceSetup(state: .down(.reset), link: Self.link(.trace(Self.trace)))]),
                Phase(at: .seconds(30), changes: [.cellular: InterfaceSetup(link: Self.link(.constant(bitsPerSecond: 2e6)))]),
                Phase(at: .seconds(40), changes: [.cellular: InterfaceSetup(link: Self.link(.trace(Self.trace)))]),
            ])
        // At 11.5 s the trace switched in at 10 s has played 1.5 s.
        let late = traced.starting(at: .milliseconds(11_500))
        let rotated = Self.trace.starting(at: 1_500_000_000)
        #expect(late.initial[.cellular]?.link.downlink.rate == .trace(rotated))
        // The phase at 20 s sets the same trace: it keeps the rotated one (the conditioner
        // continues a trace that did not change); the trace set again at 40 s, after
        // another rate, starts afresh.
        #expect(late.timeline.map { $0.changes[.cellular]?.link.downlink.rate } == [
            .trace(rotated), .constant(bitsPerSecond: 2e6), .trace(Self.trace),
        ])
    }
}
