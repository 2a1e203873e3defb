import BenchCore
import Testing
@testable import LinkConditioner

@Suite("LinkChain: rate, fairness, delay")
struct LinkChainRateTests {
    @Test("a transparent link delivers at once")
    func transparentDeliversAtOnce() {
        var link = ChainHarness(.transparent, now: 5 * second)
        link.enqueue(10_000, for: 1)
        // Due right now: the driver can forward without arming a timer.
        #expect(link.chain.nextDeadline() == 5 * second)
        #expect(link.advance(to: 5 * second) == [.deliver(1, bytes: 10_000)])
        #expect(link.chain.isIdle)
        #expect(link.chain.nextDeadline() == nil)
    }

    @Test("one connection gets the configured rate within 1% despite a late timer", arguments: [1.0, 10.0, 50.0])
    func singleConnectionRate(megabits: Double) {
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(megabits)))
        var rng = SeededGenerator(seed: 7)
        // A timer that should fire every 1 ms but is 0-3 ms late, for 10 s.
        link.run(until: 10 * second, tick: millisecond, lateness: 3 * millisecond, backlogged: [1], rng: &rng)
        let expected = megabits * 1e6 / 8 * 10
        let error = Double(link.delivered[1, default: 0]) / expected - 1
        print("rate accuracy at \(megabits) Mbit/s over 10 s: \(String(format: "%+.4f%%", error * 100)) in \(link.advanceCalls) ticks")
        #expect(abs(error) < 0.01)
    }

    @Test("an idle link earns no burst credit")
    func idleEarnsNoCredit() {
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(10)))
        // A second of silence...
        link.advance(to: 1 * second)
        // ...then 1 MB arrives: after 100 ms only 100 ms worth (125 kB) went out.
        link.enqueue(1_000_000, for: 1)
        var rng = SeededGenerator(seed: 1)
        link.run(until: 1100 * millisecond, rng: &rng)
        #expect(link.delivered[1, default: 0] <= 125_000)
        #expect(link.delivered[1, default: 0] >= 125_000 - BottleneckSettings.mtu)
    }

    @Test("four backlogged connections share the link fairly")
    func fourConnectionsShareFairly() {
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(8)))
        var rng = SeededGenerator(seed: 3)
        let connections: [ConnectionID] = [1, 2, 3, 4]
        link.run(until: 10 * second, tick: millisecond, lateness: 2 * millisecond, backlogged: connections, rng: &rng)
        let shares = connections.map { Double(link.delivered[$0, default: 0]) }
        print("4 connections at 8 Mbit/s: Jain index \(jainIndex(shares))")
        #expect(jainIndex(shares) >= 0.99)
        // Together they get the link's rate, not four times it.
        let total = shares.reduce(0, +) * 8 / 10
        #expect(abs(total / 8e6 - 1) < 0.01)
    }

    @Test("the rate is shared, not per connection: two connections get half each")
    func rateIsSharedNotPerConnection() {
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(10)))
        var rng = SeededGenerator(seed: 4)
        link.run(until: 10 * second, backlogged: [1, 2], rng: &rng)
        for connection: ConnectionID in [1, 2] {
            let megabits = Double(link.delivered[connection, default: 0]) * 8 / 10 / 1e6
            #expect(abs(megabits - 5) < 0.05, "connection \(connection) got \(megabits) Mbit/s")
        }
    }

    @Test("a connection that joins later gets its share at once")
    func lateJoinerGetsItsShare() {
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(12)))
        var rng = SeededGenerator(seed: 5)
        // Three connections for 5 s: a third each.
        link.run(until: 5 * second, backlogged: [1, 2, 3], rng: &rng)
        // A fourth joins; from 5 s on, a quarter each.
        link.run(until: 10 * second, backlogged: [1, 2, 3, 4], rng: &rng)
        let early = [1, 2, 3].map { Double(link.delivered($0, after: 0, upTo: 5 * second)) }
        let late = [1, 2, 3, 4].map { Double(link.delivered($0, after: 5 * second, upTo: 10 * second)) }
        print("late joiner: Jain \(jainIndex(early)) before, \(jainIndex(late)) after; newcomer got \(late[3] / 1_875_000) of its share")
        #expect(jainIndex(early) >= 0.99)
        #expect(jainIndex(late) >= 0.99)
        // 12 Mbit/s for 5 s = 7.5 MB, a quarter is 1.875 MB.
        #expect(abs(late[3] / 1_875_000 - 1) < 0.01)
    }

    @Test("delay is exact when there is no jitter")
    func delayIsExact() {
        // 8 Mbit/s: one 1500-byte quantum takes 1.5 ms; then 100 ms of propagation.
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(8), delay: .milliseconds(100)))
        link.enqueue(3000, for: 1)
        #expect(link.chain.nextDeadline() == 1_500_000)  // the first quantum leaves the bottleneck
        #expect(link.advance(to: 1_500_000) == [])          // ...and starts its 100 ms trip
        #expect(link.chain.nextDeadline() == 3_000_000)
        #expect(link.advance(to: 101_499_999) == [])
        #expect(link.chain.pendingBytes(for: 1) == 3000)
        #expect(link.advance(to: 101_500_000) == [.deliver(1, bytes: 1500)])
        #expect(link.chain.nextDeadline() == 103_000_000)
        #expect(link.advance(to: 103_000_000) == [.deliver(1, bytes: 1500)])
        #expect(link.chain.isIdle)
    }

    @Test("outputs of one call come in time order, one delivery per connection")
    func outputsInTimeOrder() {
        // The first quantum is sent in the good state, which then turns bad for good:
        // every later quantum is lost. 12 Mbit/s (1 ms per quantum), 5 ms delay.
        let lossAfterFirst = LossModel.gilbertElliott(goodToBad: 1, badToGood: 0, lossInGood: 0, lossInBad: 1)
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(12), delay: .milliseconds(5), loss: lossAfterFirst))
        link.enqueue(1500, for: 1)
        link.enqueue(1500, for: 2)
        // 1's quantum leaves at 1 ms and arrives at 6 ms; 2's is lost at 2 ms.
        #expect(link.advance(to: 10 * millisecond) == [
            .lost(2, bytes: 1500, heldUntil: 202 * millisecond),
            .deliver(1, bytes: 1500),
        ])

        // Without loss: 2, 1, 2 leave at 1, 2, 3 ms and arrive 10 ms later. 2's bytes are
        // coalesced into one delivery, stamped by its last byte (13 ms), so 1 (12 ms) comes first.
        var clean = ChainHarness(LinkDirectionParameters(rate: mbit(12), delay: .milliseconds(10)))
        clean.enqueue(3000, for: 2)
        clean.enqueue(1500, for: 1)
        #expect(clean.advance(to: 20 * millisecond) == [.deliver(1, bytes: 1500), .deliver(2, bytes: 3000)])
    }

    @Test("an unlimited link still applies its delay")
    func unlimitedRateStillDelays() {
        var link = ChainHarness(LinkDirectionParameters(delay: .milliseconds(30)))
        link.enqueue(100_000, for: 1)
        #expect(link.chain.bottleneckBytes == 100_000)
        #expect(link.advance(to: 0) == [])
        // Service was instantaneous: the bytes left the bottleneck and are in flight.
        #expect(link.chain.bottleneckBytes == 0)
        #expect(link.advance(to: 30 * millisecond) == [.deliver(1, bytes: 100_000)])
    }

    @Test("jitter never reorders and stays within ±jitter of the delay")
    func jitterKeepsOrderAndBounds() {
        // 12 Mbit/s: quantum k (from 1) leaves the bottleneck at exactly k ms.
        let delay: UInt64 = 50 * millisecond, jitter: UInt64 = 20 * millisecond
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(12), delay: .milliseconds(50), jitter: .milliseconds(20)))
        link.enqueue(2000 * BottleneckSettings.mtu, for: 1)
        link.stepThroughDeadlines(until: 10 * second)
        #expect(link.delivered[1] == 2000 * BottleneckSettings.mtu)
        var quantum: UInt64 = 0
        var previous: UInt64 = 0
        var smallest = UInt64.max, largest: UInt64 = 0
        for delivery in link.deliveries {
            // Stepping to each deadline: every delivery happens at its own release instant, in order.
            #expect(delivery.at >= previous)
            previous = delivery.at
            #expect(delivery.bytes % BottleneckSettings.mtu == 0)
            // The first quantum of a release sets it (it was not forced by ordering): its
            // delay is within bounds. Quanta released with it were forced to wait for it,
            // and even they stay within bounds because finish times increase.
            for k in 0..<UInt64(delivery.bytes / BottleneckSettings.mtu) {
                let finish = (quantum + k + 1) * millisecond
                let observed = delivery.at - finish
                #expect(observed >= delay - jitter && observed <= delay + jitter)
                if k == 0 {
                    smallest = min(smallest, observed)
                    largest = max(largest, observed)
                }
            }
            quantum += UInt64(delivery.bytes / BottleneckSettings.mtu)
        }
        // Dense traffic (a quantum per ms, jitter ±20 ms): ordering forces most quanta
        // to wait for a slower predecessor, so the releases that set themselves are
        // the slow ones; the spread is still there.
        #expect(largest - smallest > jitter / 2)
    }

    @Test("sparse traffic sees the whole ±jitter range, centred on the delay")
    func jitterSpreadWhenNotForced() {
        // One quantum every 50 ms, wider apart than the ±20 ms window: order never
        // forces a release, so each delay is delay + its own sample.
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(12), delay: .milliseconds(50), jitter: .milliseconds(20)))
        let count: UInt64 = 1000
        for i in 0..<count {
            link.stepThroughDeadlines(until: i * 50 * millisecond)
            link.advance(to: i * 50 * millisecond)
            link.enqueue(BottleneckSettings.mtu, for: 1)
        }
        link.stepThroughDeadlines(until: count * 50 * millisecond + second)
        // One delivery per quantum, never merged with a neighbour.
        #expect(link.deliveries.count == Int(count))
        #expect(link.deliveries.allSatisfy { $0.bytes == BottleneckSettings.mtu })
        // Quantum i left the bottleneck at i·50 ms + 1 ms.
        let observed = link.deliveries.enumerated().map { i, delivery in
            (Double(delivery.at) - Double(UInt64(i) * 50 * millisecond + millisecond)) / 1e6
        }
        let mean = observed.reduce(0, +) / Double(observed.count)
        #expect(observed.allSatisfy { $0 >= 30 && $0 <= 70 })
        #expect(observed.min()! < 31 && observed.max()! > 69)
        #expect(abs(mean - 50) < 1)
    }

    @Test("a live rate change applies from the moment it is made")
    func liveRateChange() {
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(10)))
        var rng = SeededGenerator(seed: 8)
        link.run(until: 5 * second, lateness: millisecond, backlogged: [1], rng: &rng)
        link.update(LinkDirectionParameters(rate: mbit(2)))
        link.run(until: 10 * second, lateness: millisecond, backlogged: [1], rng: &rng)
        let before = Double(link.delivered(1, after: 0, upTo: 5 * second)) * 8 / 5
        let after = Double(link.delivered(1, after: 5 * second, upTo: 10 * second)) * 8 / 5
        #expect(abs(before / 10e6 - 1) < 0.01)
        #expect(abs(after / 2e6 - 1) < 0.01)
    }

    @Test("an update keeps the progress of the quantum in progress")
    func updateKeepsQuantumProgress() {
        // 1 Mbit/s: a 1500-byte quantum takes 12 ms.
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(1)))
        link.enqueue(1500, for: 1)
        link.advance(to: 6 * millisecond)
        // Half of it went at 1 Mbit/s; the other 750 bytes take 3 ms at 2 Mbit/s.
        link.update(LinkDirectionParameters(rate: mbit(2)))
        #expect(link.chain.nextDeadline() == 9 * millisecond)
        // Updating again with the same parameters changes nothing, even twice at one instant.
        link.advance(to: 7 * millisecond)
        link.update(LinkDirectionParameters(rate: mbit(2)))
        link.update(LinkDirectionParameters(rate: mbit(2)))
        #expect(link.chain.nextDeadline() == 9 * millisecond)
        #expect(link.advance(to: 9 * millisecond) == [.deliver(1, bytes: 1500)])
    }

    @Test("frequent rate changes neither lose nor gain capacity")
    func frequentUpdatesKeepCapacity() {
        // 1 and 3 Mbit/s in turn every 50 ms (a 1 Mbit/s quantum takes 12 ms): 2 Mbit/s on average.
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(1)))
        var rng = SeededGenerator(seed: 12)
        for step in 1...200 {
            link.run(until: UInt64(step) * 50 * millisecond, lateness: millisecond, backlogged: [1], rng: &rng)
            link.update(LinkDirectionParameters(rate: mbit(step % 2 == 1 ? 3 : 1)))
        }
        let megabits = Double(link.delivered[1, default: 0]) * 8 / 10 / 1e6
        #expect(abs(megabits / 2 - 1) < 0.01)
    }

    @Test("a link that was dead restarts with at most one quantum of credit")
    func deadLinkRestartsWithoutCredit() {
        // 12 Mbit/s, 1 ms per quantum; the driver stops advancing (a blackhole) for 10 s.
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(12)))
        link.enqueue(15_000, for: 1)
        link.advance(to: 0)
        // Back at 10 s: the driver updates with the same parameters instead of advancing.
        link.skipTime(to: 10 * second)
        link.update(LinkDirectionParameters(rate: mbit(12)))
        // The quantum that was in progress completes now; then 1 ms per quantum again.
        #expect(link.chain.nextDeadline() == 10 * second)
        link.advance(to: 10 * second + 5 * millisecond)
        #expect(link.delivered[1] == 6 * 1500)
    }

    @Test("a zero rate stalls the link without a deadline until it changes")
    func zeroRateStalls() {
        var link = ChainHarness(LinkDirectionParameters(rate: .constant(bitsPerSecond: 0)))
        link.enqueue(5000, for: 1)
        #expect(link.chain.nextDeadline() == nil)
        #expect(link.advance(to: 3 * second) == [])
        // Back to 12 Mbit/s at 3 s: no credit for the stall, 1 ms per quantum from now.
        link.update(LinkDirectionParameters(rate: mbit(12)))
        #expect(link.chain.nextDeadline() == 3 * second + millisecond)
    }

    @Test("removing a connection discards its bytes and frees its share")
    func removeConnectionDiscards() {
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(12), delay: .milliseconds(10)))
        link.enqueue(30_000, for: 1)
        link.enqueue(30_000, for: 2)
        // 20 ms: twenty quanta left the bottleneck, alternating 1, 2, 1, 2...; those
        // that left by 10 ms (five each) have arrived, the others are in flight.
        link.advance(to: 20 * millisecond)
        #expect(link.delivered[1] == 5 * 1500 && link.delivered[2] == 5 * 1500)
        #expect(link.chain.pendingBytes(for: 1) == 30_000 - 5 * 1500)
        // Forgetting 1 discards its queued bytes and those in flight.
        #expect(link.chain.removeConnection(1) == 30_000 - 5 * 1500)
        #expect(link.chain.pendingBytes(for: 1) == 0)
        #expect(link.chain.bottleneckBytes == 10 * 1500)
        #expect(link.chain.removeConnection(1) == 0)
        // Connection 2 now has the whole link (1 ms per quantum) and never sees 1's leftovers.
        #expect(link.chain.nextDeadline() == 21 * millisecond)
        link.stepThroughDeadlines(until: 10 * second)
        #expect(link.delivered[2] == 30_000)
        #expect(link.delivered[1] == 5 * 1500)
        #expect(link.deliveries.last?.at == 40 * millisecond)
        #expect(link.chain.isIdle)
    }
}
