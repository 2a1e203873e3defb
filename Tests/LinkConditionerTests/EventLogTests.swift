import BenchCore
import Foundation
import Testing
@testable import LinkConditioner

/// The JSON-lines event log: one event per line, typed, and readable back.
struct EventLogTests {
    @Test func everyEventIsOneJSONLineThatDecodesToTheSameEvent() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("events-\(UUID()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try JSONLinesEventWriter(path: path)
        var stats = ConnectionStats()
        stats.bytesDownlink = 1234
        let path1 = NetworkPath(interfaces: [PathInterface(kind: .cellular, isExpensive: true, isConstrained: false,
                                                           endpoint: "127.0.0.3:9000")])
        let events: [ConditionerEvent] = [
            .init(time: 1, kind: .connectionAccepted(connection: 7, interface: .wifi, peer: "127.0.0.1:5000")),
            .init(time: 2, kind: .interfaceDown(interface: .wifi, mode: .blackhole)),
            .init(time: 3, kind: .pathPublished(path: path1)),
            .init(time: 4, kind: .packetLost(connection: 7, interface: .wifi, direction: .downlink, bytes: 1500,
                                             heldMilliseconds: 200)),
            .init(time: 5, kind: .connectionClosed(connection: 7, interface: .wifi, reason: "closed by peers", stats: stats)),
            .init(time: 6, kind: .phaseApplied(index: 0, label: nil, at: 30)),
        ]
        for event in events { writer.record(event) }
        writer.close()

        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == events.count)
        let decoded = try lines.map { try JSONDecoder().decode(ConditionerEvent.self, from: Data($0.utf8)) }
        #expect(decoded == events)
        // The shape a trace reader relies on: time under "t", the event a flat object named by "type".
        #expect(lines[0].hasPrefix("{\"event\":{\"connection\":7,"))
        #expect(lines[0].contains("\"type\":\"connectionAccepted\"}"))
        #expect(lines[0].hasSuffix("\"t\":1}"))
        #expect(lines[2].contains("\"status\":\"satisfied\""))
    }

    @Test func anUncreatableLogIsAnErrorNamingThePath() {
        #expect {
            _ = try JSONLinesEventWriter(path: "/nonexistent-dir/events.jsonl")
        } throws: { error in
            "\(error)".contains("/nonexistent-dir/events.jsonl") || (error as NSError).userInfo[NSFilePathErrorKey] as? String == "/nonexistent-dir/events.jsonl"
        }
    }

    /// A full disk (`/dev/full` answers every write with ENOSPC) stops the log and says
    /// so, with what was lost, instead of stopping the process or losing lines quietly.
    @Test func aFullDiskIsReportedWithTheEventsItLost() throws {
        #expect(FileManager.default.fileExists(atPath: "/dev/full"), "/dev/full is needed for this test")
        let writer = try JSONLinesEventWriter(path: "/dev/full")
        #expect(writer.writeFailure == nil)
        for time in 1...3 { writer.record(.init(time: UInt64(time), kind: .interfaceDown(interface: .wifi, mode: .reset))) }
        let failure = try #require(writer.writeFailure)
        #expect(failure.lostEvents == 3)
        #expect(failure.reason == "No space left on device")
        #expect(failure.description.contains("/dev/full") && failure.description.contains("3 event(s) lost"))
        writer.close()
    }

    @Test func aLogThatWroteEverythingReportsNoFailure() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("events-\(UUID()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try JSONLinesEventWriter(path: path)
        writer.record(.init(time: 1, kind: .interfaceDown(interface: .wifi, mode: .reset)))
        #expect(writer.writeFailure == nil)
        writer.close()
        #expect(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count == 1)
    }
}
