import BenchCore
import AppProtocol
import ResilienceHarness
import Testing

@Suite struct PropertyPauseTests {
    let id = "pause-holds"

    /// d1 downloads seg0; the user pauses it at 5 s and the engine suspends it at 5.1 s;
    /// seg1, sent just before, reaches the origin at 5.3 s (within the 1 s grace).
    func paused() -> TraceBuilder {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.origin("/videos/clear/400k/seg0.ts", bytes: 1000, at: 3, duration: 2)
        b.userAction("pause", "d1", at: 5)
        b.state("d1", .suspended(.user), at: 5.1)
        b.origin("/videos/clear/400k/seg1.ts", bytes: 10, at: 5.4, duration: 0.1)
        return b
    }

    /// The user resumes at 9 s; the download goes on and completes.
    func resumed(_ b: TraceBuilder) -> TraceBuilder {
        var b = b
        b.userAction("resume", "d1", at: 9)
        b.state("d1", .downloading, at: 9.05)
        b.origin("/videos/clear/400k/seg1.ts", bytes: 1000, at: 11, duration: 1.9)
        b.state("d1", .downloaded, at: 12)
        return b
    }

    @Test func aPauseThatHoldsAndResumesPasses() {
        let verdict = evaluate(id, resumed(paused()))
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 5.1, contains: "download d1 downloading → suspended(user) 0.100 s after the pause at 5.000 s")
        expectEvidence(verdict, at: 9, contains: "no segment of clear was requested from 6.100 s (the pause plus 1.000 s) to 9.000 s")
        expectEvidence(verdict, at: 9.05, contains: "download d1 suspended(user) → downloading 0.050 s after the resume at 9.000 s")
    }

    @Test func aSegmentRequestedWhilePausedFails() {
        var b = paused()
        b.origin("/videos/clear/400k/seg1.ts", bytes: 700, at: 8, duration: 1)
        let verdict = evaluate(id, resumed(b))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 7, contains: "origin GET /videos/clear/400k/seg1.ts started at 7.000 s (700 bytes) while "
            + "download d1 was paused (since 5.100 s, until 9.000 s)")
        #expect(verdict.evidence.count == 1)
    }

    @Test func nothingMoreStoredWhilePausedPasses() {
        var b = paused()
        b.pausedDisk("d1", at: 6.1, stored: ["/videos/clear/400k/seg0.ts"], partial: ["/videos/clear/400k/seg1.ts": 10])
        b.pausedDisk("d1", at: 8.9, stored: ["/videos/clear/400k/seg0.ts"], partial: ["/videos/clear/400k/seg1.ts": 10])
        let verdict = evaluate(id, resumed(b))
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 8.9, contains: "nothing more of clear was stored between the harness's reads of the "
            + "app's storage at 6.100 s and 8.900 s, while download d1 was paused")
    }

    /// A transfer that goes on in the pause without a new request (its response was on
    /// its way): the file it writes grows, then is whole, between the two reads.
    @Test func aSegmentStoredOrGrownWhilePausedFails() {
        var b = paused()
        b.pausedDisk("d1", at: 6.1, partial: ["/videos/clear/400k/seg1.ts": 10, "/videos/clear/400k/seg2.ts": 5])
        b.pausedDisk("d1", at: 8.9, stored: ["/videos/clear/400k/seg1.ts"], partial: ["/videos/clear/400k/seg2.ts": 900])
        let verdict = evaluate(id, resumed(b))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 8.9, contains: "download d1 stored /videos/clear/400k/seg1.ts and wrote more of "
            + "/videos/clear/400k/seg2.ts (+895 bytes) while paused (since 5.100 s), between the harness's reads of the "
            + "app's storage at 6.100 s and 8.900 s: a paused transfer goes on")
        #expect(verdict.evidence.filter { $0.text.contains("a paused transfer goes on") }.count == 1)
    }

    @Test func oneReadInThePauseIsNotJudged() {
        var b = paused()
        b.pausedDisk("d1", at: 6.1, partial: ["/videos/clear/400k/seg1.ts": 10])
        b.pausedDisk("d1", at: 9.5, stored: ["/videos/clear/400k/seg1.ts"])  // after the resume: outside the pause
        let verdict = evaluate(id, resumed(b))
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        #expect(!verdict.evidence.contains { $0.text.contains("between the harness's reads") })
    }

    @Test func aPauseThatDoesNotSuspendFails() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.userAction("pause", "d1", at: 5)
        b.state("d1", .downloaded, at: 8)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 8, contains: "it must be suspended(user) within 5.000 s, found downloading → downloaded after 3.000 s")
    }

    /// Chaos seed 22: the path came back 5 ms before the user paused, and the app was
    /// already resuming the download (→ downloading, stamped with the pause); it paused
    /// it 1 ms later. A change between running states before the pause takes effect is
    /// listed, not failed; one that leaves the download's run (→ downloaded) fails.
    @Test func aChangeTheAppWasAlreadyMakingBeforeThePauseTookEffectIsListed() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .suspended(.network), at: 1)
        b.userAction("pause", "d1", at: 5)
        b.change("d1", from: .suspended(.network), to: .downloading, at: 5)
        b.change("d1", from: .downloading, to: .suspended(.user), at: 5.001)
        let verdict = evaluate(id, resumed(b))
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 5, contains: "download d1 suspended(network) → downloading 0.000 s after the pause at "
            + "5.000 s, before the pause took effect")
        var late = TraceBuilder()
        late.request("d1", video: "clear", at: 0)
        late.state("d1", .downloading, at: 1)
        late.userAction("pause", "d1", at: 5)
        late.state("d1", .suspended(.user), at: 10.5)
        let slow = evaluate(id, late)
        #expect(slow.outcome == .failed, "a pause that takes effect after the bound fails")
        expectEvidence(slow, at: 10.5, contains: "it must be suspended(user) within 5.000 s, found downloading → suspended(user) after 5.500 s")
    }

    @Test func leavingThePauseWithoutAResumeFails() {
        var b = paused()
        b.change("d1", from: .suspended(.user), to: .downloading, at: 7)
        b.state("d1", .downloaded, at: 10)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 7, contains: "download d1 left suspended(user) (→ downloading) at 7.000 s with no resume")
    }

    @Test func notResumingOrNotCompletingAfterAResumeFails() {
        var stuck = paused()
        stuck.userAction("resume", "d1", at: 9)
        let verdict = evaluate(id, stuck)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 9, contains: "it must leave suspended(user) within 15.000 s, found no state change")
        var unfinished = paused()
        unfinished.userAction("resume", "d1", at: 9)
        unfinished.state("d1", .downloading, at: 9.05)
        let second = evaluate(id, unfinished)
        #expect(second.outcome == .failed)
        expectEvidence(second, at: 9.05, contains: "download d1 ended downloading, not downloaded, after the resume at 9.000 s")
    }

    @Test func noPauseOrARefusedOneIsNotApplicable() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.userAction("pause", "d1", at: 2, error: "illegal transition")
        b.state("d1", .downloaded, at: 5)
        #expect(evaluate(id, b).outcome == .notApplicable)
    }
}
