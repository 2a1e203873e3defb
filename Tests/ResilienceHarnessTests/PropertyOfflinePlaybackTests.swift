import BenchCore
import AppProtocol
import ResilienceHarness
import Testing

@Suite struct PropertyOfflinePlaybackTests {
    let id = "offline-playback"

    /// d1 completes at 5 s; both interfaces go down at 10 s.
    func offline() -> TraceBuilder {
        var b = PackageFixtures.downloaded()
        b.interface(.wifi, up: false, mode: .refuse, at: 10)
        b.interface(.cellular, up: false, mode: .refuse, at: 10)
        return b
    }

    let context = PackageFixtures.context()

    @Test func aWholePackagePlaysOffline() {
        var b = offline()
        b.inspect(inspection("d1"), at: 11)
        b.packageRead("d1", PackageFixtures.package(), cause: .inspected, at: 11.01)
        let verdict = evaluate(id, b, context)
        #expect(verdict.outcome == .passed)
        expectEvidence(verdict, at: 11, contains: "inspection of download d1 with no interface up: playable, package "
            + "whole as the harness read it")
    }

    @Test func aPackageTheHarnessFindsIncompleteFailsWhateverTheAppClaims() {
        var b = offline()
        b.inspect(inspection("d1", packageComplete: true), at: 11)
        let missing = PackageFixtures.playlist(missing: ["/videos/clear/400k/seg1.ts"])
        b.packageRead("d1", PackageFixtures.package([missing]), cause: .inspected, at: 11.01)
        let verdict = evaluate(id, b, context)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 11, contains: "package incomplete as the harness read it (video.m3u8 "
            + "(/videos/clear/400k/index.m3u8): 2 of 3 segments present, 2 byte-identical; missing /videos/clear/400k/seg1.ts)")
        // A package lacking a rendition the origin sent is incomplete too.
        var lacking = offline()
        lacking.origin("/videos/clear/audio_fr/seg0.ts", bytes: 10, at: 3)
        lacking.inspect(inspection("d1"), at: 11)
        lacking.packageRead("d1", PackageFixtures.package(), cause: .inspected, at: 11.01)
        let audio = PackageFixtures.context(more: ["/videos/clear/audio_fr/index.m3u8": ["/videos/clear/audio_fr/seg0.ts"]])
        expectEvidence(evaluate(id, lacking, audio), at: 11, contains: "no playlist of the package holds /videos/clear/audio_fr")
    }

    @Test func anUnplayableVideoOrOneWithNoPackageFails() {
        var b = offline()
        b.inspect(inspection("d1", playable: false, unplayableReason: "no license"), at: 11)
        let verdict = evaluate(id, b, context)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 11, contains: "not playable (no license); the app named no package the harness could read")
    }

    @Test func inspectionsWithAnInterfaceUpAreNotApplicable() {
        var b = offline()
        b.inspect(inspection("d1", playable: false, packageComplete: false), at: 8)
        b.interface(.cellular, up: true, at: 12)
        b.inspect(inspection("d1", playable: false, packageComplete: false), at: 13)
        #expect(evaluate(id, b, context).outcome == .notApplicable)
    }

    /// The housekeeping scenario deletes a played package and inspects the cleanup; the
    /// app's `downloaded → notDownloaded` can reach the trace after the inspection's
    /// answer (seen in the full suite), which then read as an offline inspection of a
    /// downloaded video that would not play.
    @Test func anInspectionAfterTheHarnessDeletedTheDownloadIsNoPlaybackCheck() {
        var b = offline()
        b.inspect(inspection("d1"), at: 11)
        b.packageRead("d1", PackageFixtures.package(), cause: .inspected, at: 11.01)
        b.userAction("delete", "d1", at: 12)
        b.inspect(inspection("d1", known: false, state: nil, files: 0, playable: false,
                             unplayableReason: "the engine knows no download d1", packageComplete: false), at: 12.001)
        b.state("d1", .notDownloaded, at: 12.002)
        let verdict = evaluate(id, b, context)
        #expect(verdict.outcome == .passed, "\(verdict)")
        #expect(verdict.summary.hasPrefix("1 offline inspection"), "\(verdict.summary)")
        // The same answer without the delete before it is still judged, and fails.
        var unexplained = offline()
        unexplained.inspect(inspection("d1", state: nil, playable: false, packageComplete: false), at: 12.001)
        #expect(evaluate(id, unexplained, context).outcome == .failed)
    }
}
