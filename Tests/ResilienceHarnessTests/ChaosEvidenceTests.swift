import BenchCore
import ResilienceHarness
import Testing

/// What a chaos campaign counts of the kills' cost, from the harness's disk snapshots:
/// stored paths fetched again after the relaunch, and the bytes the disk held that were
/// fetched again (a whole stored path, or the part of a partial copy asked for again).
@Suite struct ChaosEvidenceTests {
    typealias Crash = PropertyCrashRecoveryTests

    @Test func aCleanResumeCostsNothing() {
        var b = Crash.crash(after: .crash)
        Crash.resumed(&b)
        let evidence = ChaosEvidence(b.trace)
        #expect(evidence.kills == 1 && evidence.killsWithBytesInFlight == 1)
        #expect(evidence.storedSegmentsFetchedAgain == 0 && evidence.bytesLostToKills == 0)
    }

    @Test func aStoredPathFetchedAgainAndAResumeFromTooEarlyAreCounted() {
        var b = Crash.crash(after: .crash)
        b.origin(Crash.seg1, bytes: 1000, at: 12.2, duration: 0.2)
        b.origin(Crash.seg2, bytes: 900, range: "bytes=100-", at: 12.5, duration: 0.5)
        Crash.resumed(&b)
        let evidence = ChaosEvidence(b.trace)
        #expect(evidence.storedSegmentsFetchedAgain == 1)
        // seg1's 1000 bytes again, and 300 of the 400 bytes of seg2 the disk held.
        #expect(evidence.bytesLostToKills == 1300)
    }
}
