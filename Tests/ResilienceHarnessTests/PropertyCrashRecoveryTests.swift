import BenchCore
import AppProtocol
import ResilienceHarness
import Testing

/// `crash-recovery` on the harness's own disk snapshot at each kill and the origin's
/// log; the Range rule and the app's claims are in `PropertyCrashRecoveryDiskTests`.
@Suite struct PropertyCrashRecoveryTests {
    let id = "crash-recovery"
    static let seg0 = "/videos/clear/400k/seg0.ts"
    static let seg1 = "/videos/clear/400k/seg1.ts"
    static let seg2 = "/videos/clear/400k/seg2.ts"

    /// d1 fetches seg0 and seg1, seg2 is being sent (from 6.05 s) when the agent is
    /// SIGKILLed at 10 s; the harness finds seg0 and seg1 whole on disk and 400 bytes of
    /// seg2 (10.2 s); the agent is launched again at 11 s after `termination`.
    static func crash(after termination: RelaunchKind, disk: Bool = true, claims: Bool = true) -> TraceBuilder {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.origin(seg0, bytes: 1000, at: 2, duration: 1)
        if claims { b.stored("d1", path: seg0, bytes: 1000, index: 0, at: 2.1) }
        b.origin(seg1, bytes: 1000, at: 4, duration: 1)
        if claims { b.stored("d1", path: seg1, bytes: 1000, index: 1, at: 4.1) }
        b.kill(at: 10)
        b.origin(seg2, bytes: 400, at: 10.05, duration: 4)
        if disk { b.disk(at: 10.2, stored: [seg0, seg1], partial: [seg2: 400], unknown: ["index.sqlite": 8192]) }
        b.launch(after: termination, at: 11)
        return b
    }

    /// After the launch: seg2 resumed from its 400 bytes on disk, and d1 completes.
    static func resumed(_ b: inout TraceBuilder) {
        b.origin(seg2, bytes: 600, range: "bytes=400-", at: 13, duration: 1)
        b.stored("d1", path: seg2, bytes: 1000, index: 2, at: 13.1)
        b.state("d1", .downloaded, at: 14)
    }

    @Test func resumesWithoutRefetchingAfterACrash() {
        var b = Self.crash(after: .crash)
        Self.resumed(&b)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        #expect(verdict.summary.contains("2 paths stored whole on disk at the kills, 0 bytes of them fetched again, "
            + "1 partial copy resumed by Range"), "\(verdict.summary)")
        expectEvidence(verdict, at: 10, contains: "the kill at 10.000 s counts: the origin was sending GET "
            + "/videos/clear/400k/seg2.ts at it (400 bytes from 6.050 s to 10.050 s)")
        expectEvidence(verdict, at: 11, contains: "none of the 2 paths the app's disk held whole at the kill at "
            + "10.000 s was fetched again (1 request after it)")
        expectEvidence(verdict, at: 14, contains: "download d1 downloading → downloaded after the kill")
    }

    @Test func fetchingAgainWhatTheDiskHeldWholeFails() {
        var b = Self.crash(after: .memoryPressure)
        b.origin(Self.seg1, bytes: 1000, at: 12.5, duration: 0.5)
        Self.resumed(&b)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 12, contains: "origin GET /videos/clear/400k/seg1.ts sent 1000 bytes again after "
            + "the kill at 10.000 s; the app's disk held the whole of it at the kill")
        #expect(verdict.evidence.count == 1, "\(verdict.evidence)")
    }

    /// What was stored is the disk's word, not the app's: a refetch of a path the app
    /// never reported stored is caught all the same.
    @Test func theDiskNotTheAppSaysWhatWasStored() {
        var b = Self.crash(after: .crash, claims: false)
        b.origin(Self.seg0, bytes: 1000, at: 12.5, duration: 0.5)
        Self.resumed(&b)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 12, contains: "origin GET /videos/clear/400k/seg0.ts sent 1000 bytes again")
    }

    @Test func askingForAStoredPathWithoutGettingABodyIsNoRefetch() {
        var b = Self.crash(after: .crash)
        b.origin(Self.seg1, bytes: 0, range: "bytes=1000-", at: 12.5, duration: 0.5, status: 416)
        Self.resumed(&b)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 12, contains: "sent no body (status 416)")
    }

    @Test func aKillWithoutADiskSnapshotFails() {
        var b = Self.crash(after: .crash, disk: false)
        Self.resumed(&b)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 11, contains: "no disk snapshot was recorded at the kill at 10.000 s")
    }

    @Test func notCompletingAfterACrashFails() {
        var b = Self.crash(after: .crash)
        b.origin(Self.seg2, bytes: 100, range: "bytes=400-", at: 12.5, duration: 0.5)
        b.change("d1", from: .downloading, to: .suspended(.network), at: 12.6)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 12.6, contains: "download d1 ended suspended(network), not downloaded")
    }

    @Test func aForceQuitFailsInFlightDownloadsAtOnce() {
        var b = Self.crash(after: .userForceQuit)
        b.state("d1", .failed, at: 11.2)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed)
        expectEvidence(verdict, at: 11.2, contains: "download d1 downloading → failed 0.200 s after the launch after userForceQuit")
    }

    /// The app may report the failure before the harness has its answer to `hello`.
    @Test func aFailureReportedBeforeTheHarnessSawTheLaunchCounts() {
        var b = Self.crash(after: .userForceQuit)
        b.state("d1", .failed, at: 10.9)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 10.9, contains: "download d1 downloading → failed 0.000 s after the launch after userForceQuit")
    }

    /// The bound counts from the app being up (its answer to hello): a start-up slowed
    /// by a busy machine is not the app's delay.
    @Test func aSlowStartUpIsNotTheAppsDelay() {
        var b = Self.crash(after: .userForceQuit)
        b.add(17.5, .harness(.helloAnswered(app: "slow", capabilities: [])))
        b.state("d1", .failed, at: 18)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 18, contains: "download d1 downloading → failed 0.500 s after the app answered hello at 17.500 s")
    }

    @Test func aFailureLateAfterTheHelloAnswerFails() {
        var b = Self.crash(after: .userForceQuit)
        b.add(12, .harness(.helloAnswered(app: "late", capabilities: [])))
        b.state("d1", .failed, at: 17.5)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 17.5, contains: "after the app answered hello at 12.000 s (launched after userForceQuit at "
            + "11.000 s) it must fail within 5.000 s, found downloading → failed after 5.500 s")
    }

    @Test func aFailureBeforeTheHelloAnswerIsAtOnce() {
        var b = Self.crash(after: .userForceQuit)
        b.state("d1", .failed, at: 11.5)
        b.add(19, .harness(.helloAnswered(app: "slow", capabilities: [])))
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 11.5, contains: "failed 0.000 s after the app answered hello at 19.000 s")
    }

    @Test func resumingAfterAForceQuitFails() {
        var b = Self.crash(after: .rebootWhileSuspended)
        b.change("d1", from: .downloading, to: .suspended(.network), at: 11.5)
        b.state("d1", .failed, at: 20)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 11.5, contains: "found downloading → suspended(network) after 0.500 s")
    }

    /// Killed at 10 s when seg1 had ended (9.5 s): only a playlist and a media request
    /// that had sent nothing were open. The kill is judged but does not count.
    @Test func aKillWithNothingInFlightDoesNotCount() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.origin(Self.seg0, bytes: 1000, at: 2, duration: 1)
        b.origin(Self.seg1, bytes: 1000, at: 9.5, duration: 1)
        b.kill(at: 10)
        b.origin("/videos/clear/400k/index.m3u8", bytes: 300, at: 10.05, duration: 1)
        b.origin(Self.seg2, bytes: 0, at: 10.05, duration: 0.5)
        b.disk(at: 10.2, stored: [Self.seg0, Self.seg1])
        b.launch(after: .crash, at: 11)
        b.origin(Self.seg2, bytes: 1000, at: 13, duration: 1)
        b.state("d1", .downloaded, at: 14)
        let verdict = evaluate(id, b, PropertyContext(minimumCrashRestarts: 1))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 14, contains: "only 0 kills with bytes in flight followed by a launch after a crash "
            + "or memory pressure (not counted: the kill at 10.000 s, with nothing in flight); this scenario must "
            + "make at least 1")
        #expect(verdict.summary.contains("0 after a crash or memory pressure with bytes in flight, 1 with nothing in "
            + "flight"), "\(verdict.summary)")
        let judged = evaluate(id, b)
        #expect(judged.outcome == .passed, "without a minimum the kill is judged like any other")
        expectEvidence(judged, at: 10, contains: "the kill at 10.000 s does not count: no media response was on its "
            + "way to the app at it (nothing in flight)")
    }

    /// The origin had sent seg0 and seg1 (2000 body bytes) on the app's connection by
    /// 9.5 s; the conditioner, shaping the link, had delivered `delivered` bytes down it
    /// when it closed at `closedAt`. Killed at 10 s, relaunched after a crash at 11 s.
    static func conditionerCut(delivered: Int, closedAt: Double, held: Int? = nil) -> TraceBuilder {
        var b = TraceBuilder()
        let peer = "127.0.0.1:50000"
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 0.2)
        b.connectionAccepted(1, peer: peer, at: 0.5)
        b.origin(seg0, bytes: 1000, at: 2, duration: 1, source: peer)
        b.origin(seg1, bytes: 1000, at: 9.5, duration: 1, source: peer)
        b.delivered(1, total: min(delivered, 1200), at: 5)
        b.connectionClosed(1, delivered: delivered, at: closedAt)
        b.kill(at: 10)
        let held = held ?? delivered - 1200  // of seg1, past seg0 and the two heads (100 bytes each)
        if held < 1000 {
            b.disk(at: 10.2, stored: [seg0], partial: held > 0 ? [seg1: Int64(held)] : [:])
            b.launch(after: .crash, at: 11)
            b.origin(seg1, bytes: 1000 - held, range: held > 0 ? "bytes=\(held)-" : nil, at: 12, duration: 0.5)
        } else {
            b.disk(at: 10.2, stored: [seg0, seg1])
            b.launch(after: .crash, at: 11)
        }
        b.state("d1", .downloaded, at: 14)
        return b
    }

    /// Bytes the origin had sent but the conditioner still held when the app died were in flight.
    @Test func aKillCountsWhenTheConditionerHadNotDeliveredWhatTheOriginSent() {
        let cut = evaluate(id, Self.conditionerCut(delivered: 1500, closedAt: 10.01), PropertyContext(minimumCrashRestarts: 1))
        #expect(cut.outcome == .passed, "\(cut.evidence)")
        expectEvidence(cut, at: 10, contains: "the kill at 10.000 s counts: GET /videos/clear/400k/seg1.ts (from "
            + "8.500 s) was cut: the origin had sent 500 body bytes more on the app's connection 1 than the "
            + "conditioner ever delivered to the app")
        // All delivered (bodies and heads): nothing was on its way.
        let whole = evaluate(id, Self.conditionerCut(delivered: 2300, closedAt: 10.01), PropertyContext(minimumCrashRestarts: 1))
        #expect(whole.outcome == .failed)
        // Closed before the kill: what it lost was lost then, not at the kill.
        let earlier = evaluate(id, Self.conditionerCut(delivered: 1500, closedAt: 9.8), PropertyContext(minimumCrashRestarts: 1))
        #expect(earlier.outcome == .failed)
        expectEvidence(earlier, at: 14, contains: "only 0 kills with bytes in flight")
    }

    /// Everything reached the app's socket (delivered 2300 ≥ 2000 body bytes and two
    /// heads), but its disk held 300 bytes of seg1 at the kill, whose response carried
    /// 1000 on a connection still open: the rest was in the app's buffers.
    /// (Or none of it: the conditioner counts as delivered what it writes into a socket
    /// whose app has just died.)
    @Test(arguments: [300, 0])
    func aKillCountsWhenTheDiskHeldLessThanAnOpenConnectionCarried(_ held: Int) {
        let context = PropertyContext(minimumCrashRestarts: 1)
        let verdict = evaluate(id, Self.conditionerCut(delivered: 2300, closedAt: 10.01, held: held), context)
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 10, contains: "the kill at 10.000 s counts: GET /videos/clear/400k/seg1.ts (from "
            + "8.500 s, on the app's connection 1, open at the kill) had carried its bytes up to 1000, but the disk "
            + "held \(held) at the kill: \(1000 - held) bytes were on their way")
        // A connection the conditioner closed before the kill: the bytes were lost then.
        let earlier = evaluate(id, Self.conditionerCut(delivered: 2300, closedAt: 9.8, held: 300), context)
        #expect(earlier.outcome == .failed)
        expectEvidence(earlier, at: 14, contains: "only 0 kills with bytes in flight")
    }

    @Test func fewerCrashesThanTheScenarioMustMakeFails() {
        var b = Self.crash(after: .crash)
        Self.resumed(&b)
        let short = evaluate(id, b, PropertyContext(minimumCrashRestarts: 2))
        #expect(short.outcome == .failed)
        #expect(short.summary.contains("1 kill and relaunch (1 after a crash or memory pressure with bytes in flight, "
            + "0 after a force-quit or reboot)"), "\(short.summary)")
        expectEvidence(short, at: 14, contains: "only 1 kill with bytes in flight followed by a launch after a crash "
            + "or memory pressure; this scenario must make at least 2")
        let enough = evaluate(id, b, PropertyContext(minimumCrashRestarts: 1))
        #expect(enough.outcome == .passed)
        expectEvidence(enough, at: 14, contains: "1 kill with bytes in flight followed by a launch after a crash or "
            + "memory pressure (at least 1 required)")
        var forceQuit = Self.crash(after: .userForceQuit)
        forceQuit.state("d1", .failed, at: 11.2)
        #expect(evaluate(id, forceQuit).outcome == .passed)
        #expect(evaluate(id, forceQuit, PropertyContext(minimumCrashRestarts: 1)).outcome == .failed,
                "a force-quit relaunch does not count as a crash")
    }

    @Test func noKillIsNotApplicable() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.state("d1", .downloaded, at: 5)
        #expect(evaluate(id, b).outcome == .notApplicable)
    }
}
