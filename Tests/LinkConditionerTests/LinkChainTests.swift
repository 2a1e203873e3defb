import BenchCore
import TestSupport
import Testing
@testable import LinkConditioner

/// The stages composed: what the chain adds to them is the order (bottleneck, loss,
/// delay) and the way back for lost bytes. These tests follow the bytes themselves.
@Suite("LinkChain: the bytes themselves")
struct LinkChainTests {
    typealias Chain = LinkChain<StreamBytes>

    @Test("a lost quantum's own bytes are sent again, before the bytes behind them")
    func lostBytesAreTheOnesSentAgain() {
        // 12 Mbit/s: 1 ms per quantum; everything is lost until the update.
        var chain = Chain(parameters: LinkDirectionParameters(rate: mbit(12), loss: .bernoulli(probability: 1)),
                          retransmissionTimeout: 10 * millisecond, generator: SeededGenerator(seed: 1), now: 0)
        chain.enqueue(StreamBytes(0..<3000), for: 1, now: 0)
        #expect(chain.advance(to: millisecond) == [.lost(1, bytes: 1500, heldUntil: 11 * millisecond)])
        chain.update(parameters: LinkDirectionParameters(rate: mbit(12)), retransmissionTimeout: 0, now: millisecond)
        #expect(chain.advance(to: 12 * millisecond) == [.deliver(1, StreamBytes(0..<1500))])
        #expect(chain.advance(to: 13 * millisecond) == [.deliver(1, StreamBytes(1500..<3000))])
        #expect(chain.isIdle)
    }

    @Test("under a random workload every connection gets its stream whole, once, in order", .cpuHeavy, arguments: [1, 2, 3] as [UInt64])
    func streamsArriveWholeAndInOrder(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        var chain = Chain(parameters: randomParameters(&rng), retransmissionTimeout: 0,
                          generator: SeededGenerator(seed: seed), now: 0)
        var now: UInt64 = 0
        var sent: [ConnectionID: Int] = [:]
        var received: [ConnectionID: StreamBytes] = [:]
        var losses = 0
        func take(_ outputs: [LinkOutput<StreamBytes>]) {
            for output in outputs {
                switch output {
                case let .deliver(connection, payload): received[connection, default: StreamBytes()].append(payload)
                case .lost: losses += 1
                case .fault: Issue.record("a link chain has no connection faults")
                }
            }
        }
        for _ in 0..<20_000 {
            let connection = ConnectionID(1 + rng.next() % 20)
            if rng.unit() < 0.5 {
                let start = sent[connection, default: 0], count = 1 + Int(rng.next() % 10_000)
                chain.enqueue(StreamBytes(start..<start + count), for: connection, now: now)
                sent[connection] = start + count
            } else if rng.unit() < 0.05 {
                chain.update(parameters: randomParameters(&rng), retransmissionTimeout: rng.next() % (50 * millisecond), now: now)
            }
            now += rng.next() % (2 * millisecond)
            take(chain.advance(to: now))
        }
        chain.update(parameters: .transparent, retransmissionTimeout: 0, now: now)
        take(chain.advance(to: now + 10 * second))
        #expect(chain.isIdle)
        #expect(losses > 0, "the workload should have lost some quanta")
        for (connection, total) in sent {
            #expect(received[connection] == StreamBytes(0..<total), "connection \(connection)")
        }
    }

    private func randomParameters(_ rng: inout SeededGenerator) -> LinkDirectionParameters {
        LinkDirectionParameters(
            rate: rng.next() % 4 == 0 ? .unlimited : .constant(bitsPerSecond: 1e6 + Double(rng.next() % 50_000_000)),
            delay: .milliseconds(Int64(rng.next() % 50)),
            jitter: .milliseconds(Int64(rng.next() % 30)),
            loss: rng.next() % 2 == 0 ? .bernoulli(probability: 0.05) : .none)
    }
}
