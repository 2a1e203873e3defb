import BenchCore
import Foundation
import Testing
@testable import LinkConditioner

@Suite("ConnectionFaultState")
struct ConnectionFaultStateTests {
    @Test("reset after N bytes splits the write that crosses N")
    func resetAfterBytesSplitsWrite() {
        var state = ConnectionFaultState(faults: ConnectionFaults(resetAfterBytes: 10_000), generator: SeededGenerator(seed: 1))
        #expect(state.admit(6000) == (6000, nil))
        // The next 6000 cross the threshold: 4000 go, then the reset.
        #expect(state.admit(6000) == (4000, .reset(reason: "reset after 10000 bytes")))
        // The connection is over: nothing more goes, and the verdict does not change.
        #expect(state.admit(100) == (0, .reset(reason: "reset after 10000 bytes")))
        #expect(state.forwardedBytes == 10_000)
    }

    @Test("a write that lands exactly on the threshold goes whole, then the fault fires")
    func exactThreshold() {
        var state = ConnectionFaultState(faults: ConnectionFaults(closeAfterBytes: 3000), generator: SeededGenerator(seed: 1))
        #expect(state.admit(3000) == (3000, .close(reason: "close after 3000 bytes")))
    }

    @Test("close after N bytes, counted over both directions")
    func closeAfterBytes() {
        var state = ConnectionFaultState(faults: ConnectionFaults(closeAfterBytes: 1000), generator: SeededGenerator(seed: 1))
        #expect(state.admit(300) == (300, nil))  // request upstream
        #expect(state.admit(900) == (700, .close(reason: "close after 1000 bytes")))  // response downstream
    }

    @Test("reset beats close when both fall on the same byte; the earlier one wins otherwise")
    func resetBeatsCloseOnTie() {
        var tie = ConnectionFaultState(faults: ConnectionFaults(resetAfterBytes: 500, closeAfterBytes: 500), generator: SeededGenerator(seed: 1))
        #expect(tie.admit(800) == (500, .reset(reason: "reset after 500 bytes")))

        var closeFirst = ConnectionFaultState(faults: ConnectionFaults(resetAfterBytes: 501, closeAfterBytes: 500), generator: SeededGenerator(seed: 1))
        #expect(closeFirst.admit(800) == (500, .close(reason: "close after 500 bytes")))
    }

    @Test("a threshold of zero fires before any byte; a lowered threshold fires at once")
    func zeroAndLoweredThresholds() {
        var zero = ConnectionFaultState(faults: ConnectionFaults(resetAfterBytes: 0), generator: SeededGenerator(seed: 1))
        #expect(zero.admit(10) == (0, .reset(reason: "reset after 0 bytes")))

        var live = ConnectionFaultState(faults: .none, generator: SeededGenerator(seed: 1))
        #expect(live.admit(5000) == (5000, nil))
        // The profile now says: close after 4000 bytes. 5000 already went, so: close now.
        live.update(faults: ConnectionFaults(closeAfterBytes: 4000))
        #expect(live.admit(10) == (0, .close(reason: "close after 4000 bytes")))
    }

    @Test("no faults: everything goes, forever")
    func noFaults() {
        var state = ConnectionFaultState(faults: .none, generator: SeededGenerator(seed: 1))
        for _ in 0..<1000 { #expect(state.admit(1 << 20) == (1 << 20, nil)) }
    }

    @Test("reset probability 1 per MiB resets at once; 0 never does")
    func probabilityExtremes() {
        var certain = ConnectionFaultState(faults: ConnectionFaults(resetProbabilityPerMB: 1), generator: SeededGenerator(seed: 1))
        let (allowed, action) = certain.admit(100)
        #expect(allowed == 0)
        #expect(action != nil)
        let never = ConnectionFaultState(faults: ConnectionFaults(resetProbabilityPerMB: 0), generator: SeededGenerator(seed: 1))
        #expect(never.randomResetAt == nil)
    }

    @Test("random resets: the mean distance is 1/λ MiB with λ = -ln(1-p)", arguments: [0.1, 0.5, 0.9])
    func randomResetMeanDistance(p: Double) {
        let root = SeededGenerator(seed: 42)
        var total = 0.0
        var withinOneMiB = 0
        let connections = 4000
        for i in 0..<connections {
            var state = ConnectionFaultState(
                faults: ConnectionFaults(resetProbabilityPerMB: p), generator: root.derived("connection.\(i)"))
            // Forward in 64 kB writes until the reset: `allowed` adds up to the distance.
            var distance = 0
            while true {
                let (allowed, action) = state.admit(65_536)
                distance += allowed
                if action != nil { break }
            }
            total += Double(distance)
            if distance <= 1_048_576 { withinOneMiB += 1 }
        }
        let meanMiB = total / Double(connections) / 1_048_576
        let expected = 1 / -log(1 - p)
        print("reset p=\(p)/MiB: mean distance \(meanMiB) MiB, expected \(expected); reset within 1 MiB: \(Double(withinOneMiB) / Double(connections))")
        #expect(abs(meanMiB / expected - 1) < 0.1)
        // Which is what p means: the chance of a reset within one MiB.
        #expect(abs(Double(withinOneMiB) / Double(connections) - p) < 0.03)
    }

    @Test("slow connect delays the hand-off by one RTT plus the extra")
    func slowConnectDelay() {
        var link = InterfaceLink(
            downlink: LinkDirectionParameters(delay: .milliseconds(40)),
            uplink: LinkDirectionParameters(delay: .milliseconds(20)))
        #expect(ConnectionFaultState.slowConnectDelay(link: link) == nil)
        link.faults.slowConnectExtra = .milliseconds(500)
        #expect(ConnectionFaultState.slowConnectDelay(link: link) == 560 * 1_000_000)
    }
}
