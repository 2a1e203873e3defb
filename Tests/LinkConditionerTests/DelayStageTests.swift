import BenchCore
import Testing
@testable import LinkConditioner

@Suite("DelayStage")
struct DelayStageTests {
    typealias Stage = DelayStage<StreamBytes>

    func line(delay: UInt64, jitter: UInt64 = 0, seed: UInt64 = 1) -> StageDriver<Stage> {
        StageDriver(Stage(settings: DelaySettings(delay: delay, jitter: jitter), generator: SeededGenerator(seed: seed)))
    }

    @Test("without jitter a packet arrives exactly one delay after it entered")
    func exactDelay() {
        var line = line(delay: 30 * millisecond)
        line.advance(to: 5 * millisecond)
        line.enqueue(StreamBytes(0..<100), for: 1)
        #expect(line.stage.nextDeadline() == 35 * millisecond)
        #expect(line.advance(to: 35 * millisecond - 1).isEmpty)
        #expect(line.stage.pendingBytes(for: 1) == 100)
        let out = line.advance(to: 35 * millisecond)
        #expect(out.map(\.payload) == [StreamBytes(0..<100)])
        #expect(out.map(\.at) == [35 * millisecond])
        #expect(line.stage.bytesInFlight == 0)
    }

    @Test("what a connection has released by now comes as one packet, stamped by its last release")
    func releasesAreCoalesced() {
        var line = line(delay: 10 * millisecond)
        for i in 0..<3 {
            line.advance(to: UInt64(i) * millisecond)
            line.enqueue(StreamBytes(i * 100..<(i + 1) * 100), for: 1)
        }
        let out = line.advance(to: 20 * millisecond)
        #expect(out.map(\.payload) == [StreamBytes(0..<300)])
        #expect(out.map(\.at) == [12 * millisecond])
    }

    @Test("connections leave earliest release first, each on its own line")
    func connectionsAreIndependent() {
        var line = line(delay: 10 * millisecond)
        line.enqueue(StreamBytes(0..<100), for: 1)
        line.stage.update(settings: DelaySettings(delay: 2 * millisecond))
        line.advance(to: millisecond)
        line.enqueue(StreamBytes(0..<100), for: 2)
        // 2 came later but has the shorter delay: it leaves first.
        #expect(line.advance(to: 20 * millisecond).map(\.connection) == [2, 1])
        #expect(line.departures.map(\.at) == [3 * millisecond, 10 * millisecond])
    }

    @Test("a shorter delay never lets a connection's later bytes overtake its earlier ones")
    func shorterDelayDoesNotReorder() {
        var line = line(delay: 100 * millisecond)
        line.enqueue(StreamBytes(0..<100), for: 1)
        line.stage.update(settings: DelaySettings(delay: 10 * millisecond))
        line.advance(to: millisecond)
        line.enqueue(StreamBytes(100..<200), for: 1)
        #expect(line.advance(to: 99 * millisecond).isEmpty)
        #expect(line.advance(to: 100 * millisecond).map(\.payload) == [StreamBytes(0..<200)])
    }

    @Test("jitter stays within ±jitter of the delay, spreads, and never reorders a connection")
    func jitterBoundsAndOrder() {
        let delay: UInt64 = 50 * millisecond, jitter: UInt64 = 20 * millisecond
        var line = line(delay: delay, jitter: jitter, seed: 3)
        // Two connections, a packet each every 100 µs: dense, so order often forces a wait.
        for i in 0..<5000 {
            for connection: ConnectionID in [1, 2] {
                line.stage.enqueue(LinkPacket(connection: connection, payload: StreamBytes(i * 100..<(i + 1) * 100),
                                              at: UInt64(i) * 100_000))
            }
        }
        line.stepThroughDeadlines(until: 10 * second)
        for connection: ConnectionID in [1, 2] {
            let mine = line.departures.filter { $0.connection == connection }
            var stream = StreamBytes()
            for packet in mine { stream.append(packet.payload) }
            #expect(stream == StreamBytes(0..<500_000), "connection \(connection)'s bytes arrive whole and in order")
            #expect(zip(mine, mine.dropFirst()).allSatisfy { $0.at <= $1.at })
        }
        // Stepping to each deadline, a packet is what one release let go: its first bytes set
        // that release with their own sample (later ones were forced to wait for it), so
        // their delay, from the instant they entered (byte offset / 100 × 100 µs), is in bounds.
        let delays = line.departures.map { packet in
            Double(packet.at) - Double(packet.payload.ranges[0].lowerBound / 100) * 1e5
        }
        #expect(delays.allSatisfy { $0 >= Double(delay - jitter) && $0 <= Double(delay + jitter) })
        #expect(delays.max()! - delays.min()! > Double(jitter) / 2)
    }

    @Test("removing a connection drops its line and nothing else")
    func removeConnection() {
        var line = line(delay: 10 * millisecond)
        line.enqueue(StreamBytes(0..<100), for: 1)
        line.enqueue(StreamBytes(0..<200), for: 2)
        #expect(line.stage.removeConnection(1) == 100)
        #expect(line.stage.removeConnection(1) == 0)
        #expect(line.stage.bytesInFlight == 200)
        #expect(line.advance(to: second).map(\.connection) == [2])
        #expect(line.stage.nextDeadline() == nil)
    }
}
