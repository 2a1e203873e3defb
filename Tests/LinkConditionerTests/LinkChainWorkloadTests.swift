import BenchCore
import TestSupport
import Testing
@testable import LinkConditioner

@Suite("LinkChain: workloads", .cpuHeavy)
struct LinkChainWorkloadTests {
    @Test("conservation: under a random workload every byte is delivered or discarded", arguments: [1, 2, 3] as [UInt64])
    func conservationUnderRandomWorkload(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var link = ChainHarness(randomParameters(&rng), seed: seed)
        var discarded: [ConnectionID: Int] = [:]
        let connections = (1...30).map { ConnectionID(UInt64($0)) }

        func balanced(_ connection: ConnectionID) -> Bool {
            link.enqueued[connection, default: 0]
                == link.delivered[connection, default: 0] + discarded[connection, default: 0]
                + link.chain.pendingBytes(for: connection)
        }

        for _ in 0..<20_000 {
            let dice = rng.unit()
            let connection = connections[Int(rng.next() % 30)]
            if dice < 0.4 {
                link.enqueue(1 + Int(rng.next() % 20_000), for: connection)
            } else if dice < 0.43 {
                link.update(randomParameters(&rng), rto: .milliseconds(Int64(rng.next() % 300)))
            } else if dice < 0.44 {
                discarded[connection, default: 0] += link.chain.removeConnection(connection)
            }
            link.advance(to: link.now + rng.next() % (3 * millisecond))
            #expect(balanced(connection))
        }
        // Open the link and let everything drain.
        link.update(.transparent)
        link.advance(to: link.now + 10 * second)
        #expect(link.chain.isIdle)
        #expect(link.chain.bottleneckBytes == 0)
        for connection in connections {
            #expect(link.chain.pendingBytes(for: connection) == 0)
            #expect(balanced(connection))
        }
    }

    @Test("1000 connections at 10 Mbit/s: fair, accurate and cheap")
    func thousandConnections() {
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(10), delay: .milliseconds(20), jitter: .milliseconds(5)))
        let connections = (1...1000).map { ConnectionID(UInt64($0)) }
        // 10 s at 10 Mbit/s is 12.5 MB: 12.5 kB each, so 20 kB keeps every one backlogged.
        for connection in connections { link.enqueue(20_000, for: connection) }
        var rng = SeededGenerator(seed: 9)
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            link.run(until: 10 * second, tick: millisecond, lateness: millisecond, rng: &rng)
        }
        let shares = connections.map { Double(link.delivered[$0, default: 0]) }
        let megabits = shares.reduce(0, +) * 8 / 10 / 1e6
        print("1000 connections: \(link.advanceCalls) ticks in \(elapsed), \(megabits) Mbit/s delivered, Jain \(jainIndex(shares))")
        #expect(jainIndex(shares) >= 0.99)
        // Deliveries lag the bottleneck by the 20±5 ms delay: at most 25 ms of the 10 s are missing.
        #expect(megabits > 10 * (1 - 0.0025 - 0.01) && megabits <= 10.001)
    }

    private func randomParameters(_ rng: inout SeededGenerator) -> LinkDirectionParameters {
        let rate: RateSpec
        switch rng.next() % 4 {
        case 0: rate = .unlimited
        case 1: rate = .constant(bitsPerSecond: 0)
        case 2:
            rate = .trace(RateTrace(name: "random", segments: [
                .init(durationNanoseconds: 100 * millisecond, bitsPerSecond: Double(rng.next() % 20_000_000)),
                .init(durationNanoseconds: 50 * millisecond, bitsPerSecond: 0),
            ]))
        default: rate = .constant(bitsPerSecond: 500_000 + Double(rng.next() % 20_000_000))
        }
        let loss: LossModel
        switch rng.next() % 3 {
        case 0: loss = .none
        case 1: loss = .bernoulli(probability: rng.unit() * 0.2)
        default: loss = .gilbertElliott(goodToBad: 0.05, badToGood: 0.3, lossInGood: 0.01, lossInBad: 0.8)
        }
        return LinkDirectionParameters(
            rate: rate,
            delay: .milliseconds(Int64(rng.next() % 100)),
            jitter: .milliseconds(Int64(rng.next() % 30)),
            loss: loss)
    }
}
