import BenchCore
import TestSupport
import Testing
@testable import LinkConditioner

@Suite("LinkChain: loss", .cpuHeavy)
struct LinkChainLossTests {
    @Test("a lost quantum holds its stream for the RTO, then the same bytes go again")
    func lostQuantumHoldsForRTO() {
        // 12 Mbit/s: 1 ms per quantum. Everything is lost for now.
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(12), loss: .bernoulli(probability: 1)))
        link.enqueue(1000, for: 1)
        // The quantum used the link for 1 ms (1000 bytes: 0.667 ms) and was lost.
        let finish: UInt64 = 666_667
        #expect(link.advance(to: millisecond) == [.lost(1, bytes: 1000, heldUntil: finish + 200 * millisecond)])
        // The loss clears at 50 ms and more bytes arrive, but the stream is held.
        link.advance(to: 50 * millisecond)
        link.update(LinkDirectionParameters(rate: mbit(12)))
        link.enqueue(500, for: 1)
        #expect(link.advance(to: 200 * millisecond) == [])
        // At the RTO exactly the same 1000 bytes are sent again (not 1500), then the 500.
        #expect(link.chain.nextDeadline() == finish + 200 * millisecond + 666_667)
        #expect(link.advance(to: finish + 200 * millisecond + 666_667) == [.deliver(1, bytes: 1000)])
        link.stepThroughDeadlines(until: second)
        #expect(link.delivered[1] == 1500)
        #expect(link.chain.isIdle)
    }

    @Test("a held connection does not hold the others: the link serves them meanwhile")
    func holdDoesNotBlockOthers() {
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(12), loss: .bernoulli(probability: 1)))
        link.enqueue(1500, for: 1)
        link.advance(to: millisecond)  // 1's quantum is lost, held until 201 ms
        link.update(LinkDirectionParameters(rate: mbit(12)))
        link.enqueue(15_000, for: 2)
        link.advance(to: 11 * millisecond)
        #expect(link.delivered[2] == 15_000)
        #expect(link.delivered[1] == nil)
    }

    @Test("Bernoulli loss loses a fraction p of the quanta, and everything arrives in the end")
    func bernoulliFraction() {
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(100), loss: .bernoulli(probability: 0.1)), seed: 11)
        let connections = (1...100).map { ConnectionID(UInt64($0)) }
        for connection in connections { link.enqueue(300 * BottleneckSettings.mtu, for: connection) }
        link.stepThroughDeadlines(until: 600 * second)
        let lost = link.losses.count
        let sent = lost + link.delivered.values.reduce(0, +) / BottleneckSettings.mtu
        let fraction = Double(lost) / Double(sent)
        print("Bernoulli p=0.1: \(lost) of \(sent) quanta lost (\(fraction))")
        #expect(abs(fraction - 0.1) < 0.01)
        // Loss delays bytes but never loses them.
        for connection in connections { #expect(link.delivered[connection] == 300 * BottleneckSettings.mtu) }
        #expect(link.chain.isIdle)
        // No connection was served while held.
        var heldUntil: [ConnectionID: UInt64] = [:]
        var events = link.losses.map { (at: $0.at, connection: $0.connection, heldUntil: Optional($0.heldUntil)) }
        events += link.deliveries.map { (at: $0.at, connection: $0.connection, heldUntil: nil) }
        events.sort { $0.at < $1.at }
        for event in events {
            if let until = event.heldUntil {
                heldUntil[event.connection] = until
            } else if let until = heldUntil.removeValue(forKey: event.connection) {
                #expect(event.at >= until)
            }
        }
    }

    @Test("100% loss never delivers and never spins: deadlines move in RTO steps")
    func totalLossNeverSpins() {
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(12), loss: .bernoulli(probability: 1)))
        link.enqueue(10_000, for: 1)
        var previous: UInt64 = 0
        for _ in 0..<50 {
            let deadline = try! #require(link.chain.nextDeadline())
            // Each retry comes one RTO plus one quantum's serialization after the last.
            #expect(previous == 0 || deadline == previous + 200 * millisecond + millisecond)
            previous = deadline
            link.advance(to: deadline)
        }
        #expect(link.delivered.isEmpty)
        #expect(link.losses.count == 50)
        // One long jump does a bounded amount of work: 10 s / 201 ms ≈ 50 losses.
        let before = link.losses.count
        link.advance(to: link.now + 10 * second)
        #expect((49...50).contains(link.losses.count - before))
        #expect(link.chain.pendingBytes(for: 1) == 10_000)
    }

    @Test("100% loss on an unlimited link with a zero RTO still moves time forward")
    func totalLossZeroRTO() {
        var link = ChainHarness(LinkDirectionParameters(loss: .bernoulli(probability: 1)), rto: .zero)
        link.enqueue(1500, for: 1)
        link.advance(to: 0)
        #expect(link.losses.count == 1)
        #expect(link.chain.nextDeadline() == LossSettings.minimumRetransmissionTimeout)
        link.advance(to: second)
        #expect(link.losses.count == 1001)
    }

    @Test("Gilbert-Elliott loss comes in bursts of mean length 1/r")
    func gilbertElliottBursts() {
        // Good state never loses, bad state always does: a burst is a stay in the bad state.
        let model = LossModel.gilbertElliott(goodToBad: 0.02, badToGood: 0.25, lossInGood: 0, lossInBad: 1)
        var link = ChainHarness(LinkDirectionParameters(rate: mbit(1200), loss: model), rto: .milliseconds(1), seed: 21)
        link.enqueue(200_000 * BottleneckSettings.mtu, for: 1)
        // Ticks of 0.5 ms, shorter than the 1 ms RTO: after a loss nothing more of the
        // stream moves in the same tick, so a tick reads "delivered run, then maybe a loss".
        var bursts: [Int] = []
        var run = 0
        var quanta = 0
        while quanta < 200_000 {
            for output in link.advance(to: link.now + 500_000) {
                switch output {
                case .lost:
                    quanta += 1
                    run += 1
                case let .deliver(_, bytes):
                    quanta += bytes / BottleneckSettings.mtu
                    if run > 0 { bursts.append(run) }
                    run = 0
                }
            }
        }
        let meanBurst = Double(bursts.reduce(0, +)) / Double(bursts.count)
        let lossRate = Double(link.losses.count) / Double(quanta)
        print("Gilbert-Elliott: \(bursts.count) bursts, mean length \(meanBurst) (1/r = 4), loss rate \(lossRate) (expected \(model.meanLossRate))")
        #expect(abs(meanBurst - 4) < 0.2)
        #expect(abs(lossRate - model.meanLossRate) < 0.01)
    }
}
