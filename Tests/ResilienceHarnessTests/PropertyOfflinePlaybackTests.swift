import BenchCore
import AppProtocol
import ResilienceHarness
import Testing

@Suite struct PropertyOfflinePlaybackTests {
    let id = "offline-playback"

    /// d1 completes at 5 s; both interfaces go down at 10 s.
    func offline() -> TraceBuilder {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.state("d1", .downloaded, at: 5)
        b.interface(.wifi, up: false, mode: .refuse, at: 10)
        b.interface(.cellular, up: false, mode: .refuse, at: 10)
        return b
    }

    @Test func aCompletePackagePlaysOffline() {
        var b = offline()
        b.inspect(inspection("d1"), at: 11)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed)
        expectEvidence(verdict, at: 11, contains: "inspection of download d1 with no interface up: playable, package complete")
    }

    @Test func anIncompleteOrUnplayablePackageFails() {
        var b = offline()
        b.inspect(inspection("d1", playable: false, unplayableReason: "no license", packageComplete: false), at: 11)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 11, contains: "not playable (no license); package incomplete")
    }

    @Test func inspectionsWithAnInterfaceUpAreNotApplicable() {
        var b = offline()
        b.inspect(inspection("d1", playable: false, packageComplete: false), at: 8)
        b.interface(.cellular, up: true, at: 12)
        b.inspect(inspection("d1", playable: false, packageComplete: false), at: 13)
        #expect(evaluate(id, b).outcome == .notApplicable)
    }

    /// The housekeeping scenario deletes a played package and inspects the cleanup; the
    /// app's `downloaded → notDownloaded` can reach the trace after the inspection's
    /// answer (seen in the full suite), which then read as an offline inspection of a
    /// downloaded video that would not play.
    @Test func anInspectionAfterTheHarnessDeletedTheDownloadIsNoPlaybackCheck() {
        var b = offline()
        b.inspect(inspection("d1"), at: 11)
        b.userAction("delete", "d1", at: 12)
        b.inspect(inspection("d1", known: false, state: nil, files: 0, playable: false,
                             unplayableReason: "the engine knows no download d1", packageComplete: false), at: 12.001)
        b.state("d1", .notDownloaded, at: 12.002)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed, "\(verdict)")
        #expect(verdict.summary.hasPrefix("1 offline inspection"), "\(verdict.summary)")
        // The same answer without the delete before it is still judged, and fails.
        var unexplained = offline()
        unexplained.inspect(inspection("d1", state: nil, playable: false, packageComplete: false), at: 12.001)
        #expect(evaluate(id, unexplained).outcome == .failed)
    }
}
