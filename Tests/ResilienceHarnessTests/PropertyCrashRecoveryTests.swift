import BenchCore
import OfflineDownloads
import ResilienceHarness
import Testing

@Suite struct PropertyCrashRecoveryTests {
    let id = "crash-recovery"

    /// d1 stores seg0 and seg1, half of seg2 arrives, then the agent is SIGKILLed at
    /// 10 s and launched again at 11 s after `termination`.
    func crash(after termination: ProcessTermination) -> TraceBuilder {
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

    @Test func noKillIsNotApplicable() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.state("d1", .downloaded, at: 5)
        #expect(evaluate(id, b).outcome == .notApplicable)
    }
}
