import BenchCore
import Testing
@testable import LinkConditioner

@Suite("LossStage")
struct LossStageTests {
    typealias Stage = LossStage<ByteCount>

    func stage(_ model: LossModel, rto: UInt64 = 200 * millisecond, seed: UInt64 = 1, now: UInt64 = 0) -> StageDriver<Stage> {
        StageDriver(Stage(settings: LossSettings(model: model, retransmissionTimeout: rto),
                          generator: SeededGenerator(seed: seed)), now: now)
    }

    @Test("without a loss model every packet leaves at once, unmarked, in order")
    func noLossPassesEverything() {
        var loss = stage(.none, now: 5 * millisecond)
        loss.enqueue(1500, for: 1)
        loss.enqueue(700, for: 2)
        // It takes no time: due the instant the packets arrive.
        #expect(loss.stage.nextDeadline() == 5 * millisecond)
        let out = loss.advance(to: 5 * millisecond)
        #expect(out.map(\.connection) == [1, 2])
        #expect(out.map(\.bytes) == [1500, 700])
        #expect(out.allSatisfy { $0.heldUntil == nil && $0.at == 5 * millisecond })
        #expect(loss.stage.nextDeadline() == nil)
    }

    @Test("a lost packet leaves at once, marked to hold its connection for the RTO")
    func lostPacketIsMarkedWithItsHold() {
        var loss = stage(.bernoulli(probability: 1), now: 7 * millisecond)
        loss.enqueue(1000, for: 3)
        #expect(loss.stage.pendingBytes(for: 3) == 1000)
        let out = loss.advance(to: 7 * millisecond)
        #expect(out.map(\.bytes) == [1000])
        #expect(out.map(\.heldUntil) == [207 * millisecond])
        #expect(loss.stage.pendingBytes(for: 3) == 0)
    }

    @Test("the hold is at least 1 ms, and saturates instead of wrapping")
    func holdBounds() {
        var zero = stage(.bernoulli(probability: 1), rto: 0)
        zero.enqueue(1, for: 1)
        #expect(zero.advance(to: 0).map(\.heldUntil) == [LossSettings.minimumRetransmissionTimeout])

        var late = stage(.bernoulli(probability: 1), now: .max - 10)
        late.enqueue(1, for: 1)
        #expect(late.advance(to: .max - 10).map(\.heldUntil) == [.max])
    }

    @Test("Bernoulli loses a fraction p of the packets", arguments: [0.02, 0.1, 0.5])
    func bernoulliFraction(p: Double) {
        var loss = stage(.bernoulli(probability: p), seed: 5)
        for _ in 0..<100_000 { loss.enqueue(1500, for: 1) }
        let out = loss.advance(to: 0)
        let fraction = Double(out.filter { $0.heldUntil != nil }.count) / Double(out.count)
        #expect(out.count == 100_000)
        #expect(abs(fraction - p) < 0.005, "lost \(fraction), expected \(p)")
    }

    @Test("Gilbert-Elliott keeps its state across a change of its probabilities; another model resets it")
    func gilbertElliottStateAcrossUpdates() {
        // Good never loses, bad always does; the first packet turns the link bad for good.
        let sticky = LossModel.gilbertElliott(goodToBad: 1, badToGood: 0, lossInGood: 0, lossInBad: 1)
        var loss = stage(sticky)
        for _ in 0..<3 { loss.enqueue(1500, for: 1) }
        #expect(loss.advance(to: 0).map { $0.heldUntil != nil } == [false, true, true])
        // New probabilities, same model: still bad.
        let stickier = LossModel.gilbertElliott(goodToBad: 1, badToGood: 0, lossInGood: 0, lossInBad: 0.999_999_9)
        loss.stage.update(settings: LossSettings(model: stickier, retransmissionTimeout: 0))
        loss.enqueue(1500, for: 1)
        #expect(loss.advance(to: 0).map { $0.heldUntil != nil } == [true])
        // No loss for a while, then Gilbert-Elliott again: it starts over, good.
        loss.stage.update(settings: LossSettings(model: .none, retransmissionTimeout: 0))
        loss.stage.update(settings: LossSettings(model: sticky, retransmissionTimeout: 0))
        for _ in 0..<2 { loss.enqueue(1500, for: 1) }
        #expect(loss.advance(to: 0).map { $0.heldUntil != nil } == [false, true])
    }

    @Test("removing a connection drops only its packets still in the stage")
    func removeConnection() {
        var loss = stage(.none)
        loss.enqueue(100, for: 1)
        loss.enqueue(200, for: 2)
        loss.enqueue(300, for: 1)
        #expect(loss.stage.removeConnection(1) == 400)
        #expect(loss.advance(to: 0).map(\.connection) == [2])
    }
}
