import BenchCore
import Testing
@testable import LinkConditioner

@Suite("ConnectionFaultStage")
struct ConnectionFaultStageTests {
    typealias Stage = ConnectionFaultStage<StreamBytes>

    func faults(_ settings: ConnectionFaults, seed: UInt64 = 1) -> StageDriver<Stage> {
        StageDriver(Stage(settings: settings, generator: SeededGenerator(seed: seed)))
    }

    @Test("without faults every byte leaves at once")
    func noFaultsPassEverything() {
        var stage = faults(.none)
        stage.enqueue(StreamBytes(0..<1_000_000), for: 1)
        #expect(stage.stage.nextDeadline() == 0)
        #expect(stage.advance(to: 0).map(\.payload) == [StreamBytes(0..<1_000_000)])
        #expect(stage.stage.firedAction(for: 1) == nil)
        #expect(stage.stage.forwardedBytes(for: 1) == 1_000_000)
    }

    @Test("close after N counts a connection's bytes both ways and cuts the packet that crosses N")
    func closeAfterBytesCutsTheCrossingPacket() {
        var stage = faults(ConnectionFaults(closeAfterBytes: 1000))
        stage.enqueue(StreamBytes(0..<300), for: 1)  // the request, on the uplink chain
        #expect(stage.stage.firedAction(for: 1) == nil)
        stage.enqueue(StreamBytes(0..<900), for: 1)  // the response, on the downlink chain
        // The first 700 bytes of the response go, the rest are cut, and the driver must close.
        #expect(stage.advance(to: 0).map(\.payload) == [StreamBytes(0..<300), StreamBytes(0..<700)])
        #expect(stage.stage.firedAction(for: 1) == .close(reason: "close after 1000 bytes"))
        // The fault is told once, when it fires.
        let fired = stage.stage.takeFired()
        #expect(fired?.connection == 1 && fired?.action == .close(reason: "close after 1000 bytes"))
        #expect(stage.stage.takeFired() == nil)
        // Nothing more passes, and the fault is not told again.
        stage.enqueue(StreamBytes(900..<1000), for: 1)
        #expect(stage.advance(to: 0).isEmpty)
        #expect(stage.stage.takeFired() == nil)
    }

    @Test("connections count apart")
    func connectionsCountApart() {
        var stage = faults(ConnectionFaults(resetAfterBytes: 1000))
        stage.enqueue(StreamBytes(0..<600), for: 1)
        stage.enqueue(StreamBytes(0..<600), for: 2)
        #expect(stage.advance(to: 0).map(\.bytes) == [600, 600])
        #expect(stage.stage.firedAction(for: 1) == nil && stage.stage.firedAction(for: 2) == nil)
        stage.enqueue(StreamBytes(600..<1200), for: 2)
        #expect(stage.advance(to: 0).map(\.payload) == [StreamBytes(600..<1000)])
        #expect(stage.stage.firedAction(for: 2) == .reset(reason: "reset after 1000 bytes"))
        #expect(stage.stage.firedAction(for: 1) == nil)
    }

    @Test("a live change applies to the bytes already counted")
    func liveChangeAppliesToCountedBytes() {
        var stage = faults(.none)
        stage.enqueue(StreamBytes(0..<5000), for: 1)
        stage.advance(to: 0)
        stage.stage.update(settings: ConnectionFaults(closeAfterBytes: 4000))
        stage.enqueue(StreamBytes(5000..<5010), for: 1)
        #expect(stage.advance(to: 0).isEmpty)
        #expect(stage.stage.firedAction(for: 1) == .close(reason: "close after 4000 bytes"))
    }

    @Test("a removed connection is forgotten")
    func removeForgets() {
        var stage = faults(ConnectionFaults(resetAfterBytes: 0))
        stage.enqueue(StreamBytes(0..<10), for: 1)
        #expect(stage.stage.firedAction(for: 1) != nil)
        #expect(stage.stage.removeConnection(1) == 0)
        #expect(stage.stage.firedAction(for: 1) == nil)
        #expect(stage.stage.forwardedBytes(for: 1) == 0)
    }

    @Test("each connection's random reset comes from a stream of its own")
    func randomResetsAreIndependentPerConnection() {
        // Where connection 7 is reset must not depend on what other connections did.
        func resetPoint(of connection: ConnectionID, after others: [ConnectionID]) -> Int {
            var stage = faults(ConnectionFaults(resetProbabilityPerMB: 0.5), seed: 9)
            for other in others { stage.enqueue(StreamBytes(0..<3_000_000), for: other) }
            var offset = 0
            while stage.stage.firedAction(for: connection) == nil, offset < 100_000_000 {
                stage.enqueue(StreamBytes(offset..<offset + 4096), for: connection)
                offset += 4096
            }
            return stage.stage.forwardedBytes(for: connection)
        }
        let alone = resetPoint(of: 7, after: [])
        #expect(alone > 0 && alone < 100_000_000)
        #expect(resetPoint(of: 7, after: [1, 2, 3]) == alone)
        #expect(resetPoint(of: 8, after: []) != alone)
    }
}
