import BenchCore
import Foundation
import AppProtocol
import ResilienceHarness
import Testing

@Suite struct TraceCodingTests {
    @Test func entriesRoundTripThroughJSONLines() throws {
        let entries = [
            TraceEntry(t: 1, .harness(.scenarioStarted(name: "s", profile: "p", seed: 7))),
            TraceEntry(t: 2, .agent(.stateChanged(download: "d", from: .downloading, to: .suspended(.network)))),
            TraceEntry(t: 3, .harness(.interfaceSet(.wifi, up: false, mode: .reset))),
        ]
        let encoder = JSONEncoder()
        let lines = try entries.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        #expect(lines.allSatisfy { !$0.contains("\n") })
        let decoded = try lines.map { try JSONDecoder().decode(TraceEntry.self, from: Data($0.utf8)) }
        #expect(decoded == entries)
    }
}
