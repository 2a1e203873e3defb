import BenchCore
import BenchResults
@testable import ResilienceHarness
import Testing

/// A session whose app spoke no protocol: what the world saw is judged, what needs the
/// app's word is said so, never passed and never failed from the silence.
@Suite struct SessionVerdictsTests {
    @Test func onlyTheWorldsPropertiesKeepTheirOutcome() {
        let verdicts = [
            Verdict(property: "crash-recovery", outcome: .failed, summary: "fetched again"),
            Verdict(property: "cellular-policy", outcome: .passed, summary: "held"),
            Verdict(property: "liveness", outcome: .failed, summary: "download never finished",
                    evidence: [Evidence(t: 1, "no state")]),
            Verdict(property: "monotonic-progress", outcome: .passed, summary: "nothing fell"),
        ]
        let judged = SessionVerdicts.withoutTheAppsWord(verdicts)
        #expect(judged.map(\.outcome) == [.failed, .passed, .notApplicable, .notApplicable])
        #expect(judged[0].summary.hasPrefix("fetched again") && judged[0].summary.contains("Judged on what the world saw"))
        #expect(judged[2].summary.hasPrefix("Needs the app's word") && judged[2].evidence.isEmpty)
        #expect(judged[3].summary.hasPrefix("Needs the app's word"))
        #expect(SessionVerdicts.judgedOnTheWorld.isSubset(of: Set(Properties.all.map(\.id))))
    }

    // MARK: An announced kill's instant

    private func closed(_ t: UInt64) -> TraceEntry {
        TraceEntry(t: t, .conditioner(.connectionClosed(connection: 1, interface: .wifi, reason: "client write error",
                                                        stats: ConnectionStats())))
    }

    private func announced(_ t: UInt64) -> TraceEntry { TraceEntry(t: t, .harness(.note("announced"))) }

    @Test func aKillAnnouncedAfterTheFactIsPlacedAtTheEndOfTheAppsConnections() {
        // The app's connection ended at 500 (the SIGKILL), the announcement came at 900.
        #expect(ScenarioContext.killInstant(in: [announced(100), closed(300), closed(500)], arrival: 900) == 499)
        // No connection ended since the test's last announcement: the app was idle; the arrival it is.
        #expect(ScenarioContext.killInstant(in: [closed(300), announced(400)], arrival: 900) == 900)
        #expect(ScenarioContext.killInstant(in: [], arrival: 900) == 900)
        // What came after the arrival is not looked at.
        #expect(ScenarioContext.killInstant(in: [announced(100), closed(950)], arrival: 900) == 900)
    }

    private func accepted(_ t: UInt64) -> TraceEntry {
        TraceEntry(t: t, .conditioner(.connectionAccepted(connection: 1, interface: .wifi, peer: "127.0.0.1:5000")))
    }

    private func forwarded(_ t: UInt64) -> TraceEntry {
        TraceEntry(t: t, .conditioner(.bytesForwarded(connection: 1, interface: .wifi, direction: .downlink, bytes: 4096, total: 4096)))
    }

    private func segment(endingAt t: UInt64, completed: Bool, peer: String = "127.0.0.1:5000") -> TraceEntry {
        TraceEntry(t: t, .origin(OriginRequestRecord(
            connectionID: 9, interface: "wifi", proxySource: peer, method: "GET", path: "/videos/clear/400k/seg2.ts",
            range: nil, status: 200, bytesSent: 4096, startedAtNanoseconds: 0, timeToFirstByteNanoseconds: 1,
            durationNanoseconds: t, faultRuleID: nil, completed: completed)))
    }

    @Test func theOriginsSightOfTheEndPlacesTheKillWhenItCameFirst() {
        // The conditioner closed the origin's side before it logged the close: the origin
        // logged the response it was sending cut at 480, the close at 500. The kill came
        // before both, with the response still on its way.
        let cut = [announced(100), accepted(150), forwarded(200), segment(endingAt: 480, completed: false), closed(500)]
        #expect(ScenarioContext.killInstant(in: cut, arrival: 900) == 479)
        // A response that ended whole, or cut on another connection, does not move it.
        #expect(ScenarioContext.killInstant(
            in: [announced(100), accepted(150), forwarded(200), segment(endingAt: 480, completed: true), closed(500)],
            arrival: 900) == 499)
        #expect(ScenarioContext.killInstant(
            in: [announced(100), accepted(150), segment(endingAt: 480, completed: false, peer: "127.0.0.1:6000"), closed(500)],
            arrival: 900) == 499)
        // The conditioner's byte counts, flushed at the close, come after the cut: they do not move it.
        #expect(ScenarioContext.killInstant(
            in: [announced(100), accepted(150), segment(endingAt: 480, completed: false), forwarded(490), closed(500)],
            arrival: 900) == 479)
        // Never before the test's announcement before it.
        #expect(ScenarioContext.killInstant(
            in: [accepted(50), segment(endingAt: 80, completed: false), announced(100), closed(500)], arrival: 900) == 499)
    }
}
