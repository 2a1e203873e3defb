import BenchCore
import AppProtocol
import ResilienceHarness
import Testing

@Suite struct PropertyCrashRecoveryTests {
    let id = "crash-recovery"

    /// d1 stores seg0 and seg1, half of seg2 arrives, then the agent is SIGKILLed at
    /// 10 s and launched again at 11 s after `termination`.
    func crash(after termination: RelaunchKind) -> TraceBuilder {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.origin("/videos/clear/400k/seg0.ts", bytes: 1000, at: 2, duration: 1)
        b.stored("d1", path: "/videos/clear/400k/seg0.ts", bytes: 1000, index: 0, at: 2.1)
        b.origin("/videos/clear/400k/seg1.ts", bytes: 1000, at: 4, duration: 1)
        b.stored("d1", path: "/videos/clear/400k/seg1.ts", bytes: 1000, index: 1, at: 4.1)
        b.kill(at: 10)
        b.origin("/videos/clear/400k/seg2.ts", bytes: 400, at: 10, duration: 4)
        b.launch(after: termination, at: 11)
        return b
    }

    @Test func resumesWithoutRefetchingAfterACrash() {
        var b = crash(after: .crash)
        b.origin("/videos/clear/400k/seg2.ts", bytes: 600, range: "bytes=400-", at: 13, duration: 1)
        b.stored("d1", path: "/videos/clear/400k/seg2.ts", bytes: 1000, index: 2, at: 13.1)
        b.state("d1", .downloaded, at: 14)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed)
        expectEvidence(verdict, at: 11, contains: "none of the 2 segment paths stored before the kill at 10.000 s was requested again (1 request after it)")
        expectEvidence(verdict, at: 14, contains: "download d1 downloading → downloaded after the kill")
    }

    @Test func refetchingAStoredSegmentFails() {
        var b = crash(after: .memoryPressure)
        b.origin("/videos/clear/400k/seg1.ts", bytes: 1000, at: 12.5, duration: 0.5)
        b.origin("/videos/clear/400k/seg2.ts", bytes: 1000, at: 13, duration: 0.5)
        b.state("d1", .downloaded, at: 14)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 12, contains: "origin GET /videos/clear/400k/seg1.ts sent 1000 bytes after the kill at 10.000 s; download d1 had stored it at 4.100 s")
        #expect(verdict.evidence.count == 1)
    }

    @Test func notCompletingAfterACrashFails() {
        var b = crash(after: .crash)
        b.change("d1", from: .downloading, to: .suspended(.network), at: 12)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 12, contains: "download d1 ended suspended(network), not downloaded")
    }

    @Test func aForceQuitFailsInFlightDownloadsAtOnce() {
        var b = crash(after: .userForceQuit)
        b.state("d1", .failed, at: 11.2)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed)
        expectEvidence(verdict, at: 11.2, contains: "download d1 downloading → failed 0.200 s after the launch after userForceQuit")
    }

    @Test func resumingAfterAForceQuitFails() {
        var b = crash(after: .rebootWhileSuspended)
        b.change("d1", from: .downloading, to: .suspended(.network), at: 11.5)
        b.state("d1", .failed, at: 20)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 11.5, contains: "found downloading → suspended(network) after 0.500 s")
    }

    /// The agent relaunched at 11 s reports the 400 bytes of seg2 left in its `.part`.
    func crashWithPartial(byteRange: String? = nil, bytes: Int64 = 400) -> TraceBuilder {
        var b = crash(after: .crash)
        b.partials([AppPartialSegment(
            download: "d1", stream: "video", index: 2, path: "/videos/clear/400k/seg2.ts", bytes: bytes,
            byteRange: byteRange)], at: 11)
        return b
    }

    @Test func aPartialSegmentResumedFromItsPartPasses() {
        var b = crashWithPartial()
        b.origin("/videos/clear/400k/seg2.ts", bytes: 600, range: "bytes=400-", at: 13, duration: 1)
        b.state("d1", .downloaded, at: 14)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        #expect(verdict.summary.contains("1 partial segment resumed by Range"), "\(verdict.summary)")
        expectEvidence(verdict, at: 12, contains: "origin GET /videos/clear/400k/seg2.ts with Range bytes=400- resumed the 400 bytes")
    }

    /// The audit's gap: a `.part` fetched again from byte 0 (no Range, or the wrong one) must fail.
    @Test(arguments: [nil, "bytes=0-", "bytes=200-"])
    func aPartialSegmentFetchedAgainFromElsewhereFails(_ range: String?) {
        var b = crashWithPartial()
        b.origin("/videos/clear/400k/seg2.ts", bytes: 1000, range: range, at: 13, duration: 1)
        b.origin("/videos/clear/400k/seg2.ts", bytes: 600, range: "bytes=400-", at: 13.5, duration: 0.2)
        b.state("d1", .downloaded, at: 14)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        let asked = range.map { "Range \($0)" } ?? "no Range (from byte 0)"
        expectEvidence(verdict, at: 12, contains: "origin GET /videos/clear/400k/seg2.ts asked \(asked) after 400 bytes "
            + "of /videos/clear/400k/seg2.ts found in the .part of download d1 at the launch after crash at 11.000 s; "
            + "it must resume with Range bytes=400-")
        #expect(verdict.evidence.count == 1, "only the first request after the launch is judged")
    }

    @Test func aByteRangeSegmentResumesWithinItsOwnRange() {
        var good = crashWithPartial(byteRange: "bytes=1000-1999", bytes: 300)
        good.origin("/videos/clear/400k/seg2.ts", bytes: 700, range: "bytes=1300-1999", at: 13, duration: 1)
        good.state("d1", .downloaded, at: 14)
        #expect(evaluate(id, good).outcome == .passed)
        var bad = crashWithPartial(byteRange: "bytes=1000-1999", bytes: 300)
        bad.origin("/videos/clear/400k/seg2.ts", bytes: 1000, range: "bytes=1000-1999", at: 13, duration: 1)
        bad.state("d1", .downloaded, at: 14)
        let verdict = evaluate(id, bad)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 12, contains: "it must resume with Range bytes=1300-1999")
    }

    @Test func fewerCrashesThanTheScenarioMustMakeFails() {
        var b = crash(after: .crash)
        b.state("d1", .downloaded, at: 14)
        let short = evaluate(id, b, PropertyContext(minimumCrashRestarts: 2))
        #expect(short.outcome == .failed)
        #expect(short.summary.contains("1 kill and relaunch (1 after a crash or memory pressure, 0 after a force-quit or reboot)"), "\(short.summary)")
        expectEvidence(short, at: 14, contains: "only 1 kill followed by a launch after a crash or memory pressure; "
            + "this scenario must make at least 2")
        let enough = evaluate(id, b, PropertyContext(minimumCrashRestarts: 1))
        #expect(enough.outcome == .passed)
        expectEvidence(enough, at: 14, contains: "1 kill followed by a launch after a crash or memory pressure (at least 1 required)")
        var forceQuit = crash(after: .userForceQuit)
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
