import BenchCore
import Testing
@testable import LinkConditioner

@Suite("BottleneckStage: queue and rate")
struct BottleneckStageTests {
    typealias Stage = BottleneckStage<StreamBytes>

    /// 12 Mbit/s: one 1500-byte quantum takes exactly 1 ms.
    func link(_ rate: RateSpec = mbit(12), now: UInt64 = 0) -> StageDriver<Stage> {
        StageDriver(Stage(settings: BottleneckSettings(rate: rate), now: now), now: now)
    }

    @Test("a quantum leaves when its last bit has crossed the link, not before")
    func quantumLeavesAtItsFinish() {
        var link = link()
        link.enqueue(StreamBytes(0..<1000), for: 1)
        // 1000 bytes at 12 Mbit/s: 666.667 µs.
        #expect(link.stage.nextDeadline() == 666_667)
        #expect(link.advance(to: 666_666).isEmpty)
        let out = link.advance(to: 666_667)
        #expect(out.map(\.payload) == [StreamBytes(0..<1000)])
        #expect(out.map(\.at) == [666_667])
        #expect(link.stage.nextDeadline() == nil)
    }

    @Test("connections take turns, one MTU each, in the order they came")
    func roundRobinInMTUQuanta() {
        var link = link()
        link.enqueue(StreamBytes(0..<3000), for: 1)
        link.enqueue(StreamBytes(0..<3000), for: 2)
        link.advance(to: 10 * millisecond)
        #expect(link.departures.map(\.connection) == [1, 2, 1, 2])
        #expect(link.departures.map(\.at) == [1, 2, 3, 4].map { $0 * millisecond })
        // Each connection's bytes leave whole and in order.
        #expect(link.departures.filter { $0.connection == 1 }.map(\.payload) == [StreamBytes(0..<1500), StreamBytes(1500..<3000)])
    }

    @Test("a quantum holds only bytes that had arrived when it started; an idle link earns no credit")
    func quantumHoldsOnlyArrivedBytes() {
        var link = link()
        link.enqueue(StreamBytes(0..<500), for: 1)
        link.advance(to: 100_000)
        // These arrive while the first 500 bytes are on the wire: they wait for the next quantum.
        link.enqueue(StreamBytes(500..<2000), for: 1)
        link.advance(to: 10 * millisecond)
        #expect(link.departures.map(\.payload) == [StreamBytes(0..<500), StreamBytes(500..<2000)])
        #expect(link.departures.map(\.at) == [333_333, 333_333 + millisecond])
        // Silent for a while: new bytes still take their full serialization time.
        link.enqueue(StreamBytes(2000..<3500), for: 1)
        #expect(link.stage.nextDeadline() == 11 * millisecond)
    }

    @Test("a retransmission goes first and whole, after its hold, with the same bytes")
    func retransmissionGoesFirstAndWhole() {
        var link = link()
        link.enqueue(StreamBytes(0..<1000), for: 1)
        let lost = link.advance(to: millisecond)[0]
        // More bytes come, then the lost quantum is back, held 20 ms after it left.
        link.enqueue(StreamBytes(1000..<1500), for: 1)
        link.enqueue(lost.payload, for: 1, heldUntil: lost.at + 20 * millisecond)
        #expect(link.stage.pendingBytes(for: 1) == 1500)
        #expect(link.advance(to: 20 * millisecond).isEmpty)
        link.stepThroughDeadlines(until: second)
        // Exactly the lost 1000 bytes (not a fresh 1500-byte quantum), then the rest.
        #expect(link.departures.dropFirst().map(\.payload) == [StreamBytes(0..<1000), StreamBytes(1000..<1500)])
        #expect(link.departures.dropFirst().first?.at == lost.at + 20 * millisecond + 666_667)
    }

    @Test("a held connection does not hold the link: the others are served meanwhile")
    func holdDoesNotBlockOthers() {
        var link = link()
        link.enqueue(StreamBytes(0..<1500), for: 1, heldUntil: 50 * millisecond)
        link.enqueue(StreamBytes(0..<3000), for: 2)
        link.stepThroughDeadlines(until: second)
        #expect(link.departures.map(\.connection) == [2, 2, 1])
        #expect(link.departures.map(\.at) == [1, 2, 51].map { $0 * millisecond })
    }

    @Test("a retransmission that refills an emptied queue takes back its turn in the round")
    func retransmissionTakesBackItsTurn() {
        var link = link()
        link.enqueue(StreamBytes(0..<3000), for: 1)
        link.enqueue(StreamBytes(0..<1500), for: 2)
        link.enqueue(StreamBytes(0..<3000), for: 3)
        link.advance(to: millisecond)  // 1 is served
        let lost = link.advance(to: 2 * millisecond)[0]  // 2 is served, and its queue is empty
        #expect(lost.connection == 2)
        // Lost with a hold that is already over: 2 is back where it was in the round,
        // after 3 and 1, not behind them as a newcomer would be.
        link.enqueue(lost.payload, for: 2, heldUntil: lost.at)
        link.advance(to: 10 * millisecond)
        #expect(link.departures.map(\.connection) == [1, 2, 3, 1, 2, 3])
    }

    @Test("a zero rate stalls the link without a deadline")
    func zeroRateStalls() {
        var link = link(.constant(bitsPerSecond: 0))
        link.enqueue(StreamBytes(0..<5000), for: 1)
        #expect(link.stage.nextDeadline() == nil)
        #expect(link.advance(to: 3 * second).isEmpty)
        link.stage.update(settings: BottleneckSettings(rate: mbit(12)), now: 3 * second)
        #expect(link.stage.nextDeadline() == 3 * second + millisecond)
    }

    @Test("every byte is served, pending, or counted when its connection is removed")
    func bytesAreAccountedFor() {
        var link = link()
        link.enqueue(StreamBytes(0..<4000), for: 1)
        link.enqueue(StreamBytes(0..<4000), for: 2)
        link.advance(to: 2 * millisecond)
        #expect(link.stage.pendingBytes(for: 1) == 2500)
        #expect(link.stage.queuedBytes == 5000)
        #expect(link.stage.removeConnection(1) == 2500)
        #expect(link.stage.removeConnection(1) == 0)
        #expect(link.stage.queuedBytes == 2500)
        link.stepThroughDeadlines(until: second)
        #expect(link.departures.filter { $0.connection == 1 }.map(\.bytes) == [1500])
        #expect(link.departures.filter { $0.connection == 2 }.reduce(0) { $0 + $1.bytes } == 4000)
        #expect(link.stage.queuedBytes == 0)
    }
}
