import BenchCore
import FixtureOrigin
import Foundation
import LinkConditioner
import AppProtocol
import ResilienceHarness
import Testing

/// The collector puts every part on the run's time axis, and the live view the
/// scripts' triggers read follows the agent's events.
@Suite struct TraceCollectorTests {
    static func record(startedAt: UInt64, duration: UInt64, interface: String?) -> OriginRequestRecord {
        OriginRequestRecord(
            connectionID: 1, interface: interface, proxySource: nil, method: "GET", path: "/videos/clear/400k/seg0.ts",
            range: nil, status: 200, bytesSent: 1000, startedAtNanoseconds: startedAt, timeToFirstByteNanoseconds: 10,
            durationNanoseconds: duration, faultRuleID: nil, completed: true)
    }

    @Test func originRecordsAreStampedAtTheirEndAndNamedByInterface() throws {
        let clock = ManualClock(startingAt: 1_000_000)
        let collector = TraceCollector(clock: clock)
        collector.absorb(
            origin: [Self.record(startedAt: 3_000_000, duration: 500_000, interface: "127.0.0.2:4000"),
                     Self.record(startedAt: 4_000_000, duration: 0, interface: "127.0.0.9:1")],
            interfaces: ["127.0.0.2:4000": .wifi])
        let entries = collector.entries
        #expect(entries.map(\.t) == [2_500_000, 3_000_000])
        guard case .origin(let first) = entries[0].event, case .origin(let second) = entries[1].event else {
            Issue.record("not origin entries: \(entries)")
            return
        }
        #expect(first.interface == "wifi")
        #expect(second.interface == "127.0.0.9:1", "an unknown listener keeps its address")
    }

    /// The order of the app's output is evidence, its stamps are claims: an event read
    /// after the app's reply to a path is never stamped before the harness read that reply.
    @Test func anEventReadAfterAnAcknowledgedReplyIsNeverStampedBeforeIt() {
        let clock = ManualClock(startingAt: 1_000)
        let collector = TraceCollector(clock: clock)
        let event = AppEvent.stateChanged(download: "d", from: .suspended(.network), to: .downloading)
        collector.agent(event, at: 1_200)  // before any reply: its own stamp
        clock.advance(by: .nanoseconds(500))
        collector.acknowledged(.pathAcknowledged(interfaces: []))
        collector.agent(event, at: 1_300)  // stamped by the app before the harness read the reply
        collector.agent(event, at: 1_700)  // stamped after it
        collector.harness(.note("a harness entry sets no floor"))
        #expect(collector.entries.map(\.t) == [200, 500, 501, 700, 500])
    }

    @Test func agentAndHarnessEventsShareTheEpoch() {
        let clock = ManualClock(startingAt: 5_000)
        let collector = TraceCollector(clock: clock)
        clock.advance(by: .nanoseconds(700))
        collector.harness(.note("now"))
        collector.agent(.evicted(download: "d1"), at: 5_300)
        collector.agent(.evicted(download: "d2"), at: 10)  // before the epoch: clamped to 0
        #expect(collector.entries.map(\.t) == [700, 300, 0])
        #expect(collector.count == 3 && collector.entries(from: 2).count == 1)
    }

    @Test func liveProgressIsTheMeanOfTheSelectionsAndFollowsStates() {
        let collector = TraceCollector(clock: ManualClock())
        collector.agent(.stateChanged(download: "d1", from: .requested, to: .downloading), at: 1)
        #expect(collector.live.progress("d1") == 0, "no selection reported yet")
        collector.agent(.progress(download: "d1", selection: "video", fraction: 0.5), at: 3)
        collector.agent(.progress(download: "d1", selection: "audio_fr", fraction: 0.25), at: 4)
        #expect(collector.live.progress("d1") == 0.375)
        collector.agent(.segmentStored(download: "d1", stream: "video", index: 0, bytes: 10, path: "/x/seg0.ts"), at: 5)
        collector.agentRelaunched()
        collector.agent(.segmentStored(download: "d1", stream: "video", index: 1, bytes: 10, path: "/x/seg1.ts"), at: 6)
        #expect(collector.live.segments["d1"] == 2 && collector.live.segmentsSinceLaunch == 1)
        collector.agent(.stateChanged(download: "d1", from: .downloading, to: .downloaded), at: 7)
        #expect(collector.live.states["d1"] == .downloaded)
        collector.scenarioStarted()
        #expect(collector.live.states.isEmpty && collector.live.progress("d1") == 0)
    }
}
