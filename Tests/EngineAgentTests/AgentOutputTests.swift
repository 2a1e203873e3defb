import AppProtocol
import BenchCore
@testable import EngineAgent
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The agent's stdout: what a misbehaving variant claims is checked and written under the
/// lock every line takes, so it starts from the state the harness last read.
@Suite struct AgentOutputTests {
    /// The lines written to a pipe by `body`, decoded.
    static func lines(_ body: (AgentOutput) -> Void) async throws -> [AppMessage] {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        body(AgentOutput(descriptor: ends[1], clock: ManualClock(startingAt: 7)))
        close(ends[1])
        let reading = ends[0]
        let data = await OffPool.run { FileHandle(fileDescriptor: reading, closeOnDealloc: true).readDataToEndOfFile() }
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map { try AppWire.decode(AppMessage.self, from: $0) }
    }

    static func claim(_ download: String) -> [AppEvent] {
        [.stateChanged(download: download, from: .suspended(.network), to: .downloading)]
    }

    @Test func claimsGoOnlyToTheDownloadsNamedInTheStateAndOnlyWhenTheConditionHolds() async throws {
        let written = try await Self.lines { output in
            output.event(.stateChanged(download: "a", from: .downloading, to: .suspended(.network)))
            output.event(.stateChanged(download: "b", from: .downloading, to: .suspended(.network)))
            output.event(.stateChanged(download: "c", from: .requested, to: .downloading))
            output.events(forDownloadsIn: .suspended(.network), when: { false }, Self.claim)
            output.events(forDownloadsIn: .suspended(.network), only: ["b", "c"], Self.claim)
            // "b" was last written downloading by the claim itself: nothing more for it.
            output.events(forDownloadsIn: .suspended(.network), only: ["b"], Self.claim)
        }
        let claims = written.dropFirst(3)
        let events = claims.map { message -> AppEvent? in if case .event(_, let event) = message { event } else { nil } }
        #expect(events == [.stateChanged(download: "b", from: .suspended(.network), to: .downloading)])
        #expect(written.allSatisfy { if case .event(let t, _) = $0 { t == 7 } else { false } })
    }
}
