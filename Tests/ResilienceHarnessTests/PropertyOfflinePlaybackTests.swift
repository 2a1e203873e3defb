import BenchCore
import OfflineDownloads
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
}
