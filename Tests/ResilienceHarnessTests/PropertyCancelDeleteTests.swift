import AppProtocol
import Foundation
import ResilienceHarness
import Testing

/// Nothing may be left of a cancelled or deleted download: judged from the disk as the
/// harness reads it (`leftAfterRemoval`), the app's answer checked beside it.
@Suite struct PropertyCancelDeleteTests {
    let id = "cancel-delete-clean"

    func leftovers(
        _ b: inout TraceBuilder, _ token: String, stored: [String] = [], partial: [String: Int64] = [:],
        packageFiles: [String] = [], at seconds: Double
    ) {
        b.add(seconds, .harness(.leftAfterRemoval(download: token, stored: stored, partial: partial, packageFiles: packageFiles)))
    }

    /// d1 is cancelled at 2 s and inspected at 3 s (the app answering `answer`).
    func cancelled(answer: AppInspection) -> TraceBuilder {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.userAction("cancel", "d1", at: 2)
        b.state("d1", .canceling, at: 2)
        b.state("d1", .notDownloaded, at: 2.5)
        b.inspect(answer, at: 3)
        return b
    }

    static let gone = inspection("d1", known: false, state: nil, files: 0, playable: false)

    @Test func aCleanCancelPasses() {
        var b = cancelled(answer: Self.gone)
        leftovers(&b, "d1", at: 3.01)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed, "\(verdict)")
        expectEvidence(verdict, at: 3, contains: "after the cancel of download d1 at 2.000 s: nothing of it on the disk")
    }

    /// The app says it is all gone; the disk says otherwise.
    @Test func filesLeftOnTheDiskFailWhateverTheAppSays() {
        var b = cancelled(answer: Self.gone)
        leftovers(&b, "d1", stored: ["/videos/clear/400k/seg0.ts"], partial: ["/videos/clear/400k/seg1.ts": 1200],
                  packageFiles: ["video/index.m3u8"], at: 3.01)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 3, contains: "the disk still holds 1 of its resources whole (/videos/clear/400k/seg0.ts)")
        expectEvidence(verdict, at: 3, contains: "the disk still holds part of 1 of its resources")
        expectEvidence(verdict, at: 3, contains: "1 file left in its package directory (video/index.m3u8)")
    }

    @Test func theAppsClaimsAreCheckedToo() {
        var b = TraceBuilder()
        b.request("d1", video: "drm", at: 0, protected: true)
        b.userAction("delete", "d1", at: 5)
        b.inspect(inspection("d1", known: true, state: .downloaded, files: 2,
                             licenseExpiration: Date(timeIntervalSince1970: 0)), at: 6)
        leftovers(&b, "d1", at: 6.01)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 6, contains: "the app still knows it (downloaded); the app counts 2 files; the app holds a license")
    }

    @Test func noDiskReadAfterTheRemovalFails() {
        let verdict = evaluate(id, cancelled(answer: Self.gone))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 3, contains: "the harness did not read the disk after it")
    }

    @Test func refusedOrUninspectedActionsAreNotApplicable() {
        var b = TraceBuilder()
        b.userAction("cancel", "d1", at: 1, error: "unknown token")
        b.inspect(inspection("d1", files: 3), at: 2)
        b.userAction("delete", "d2", at: 3)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .notApplicable)
        expectEvidence(verdict, at: 3, contains: "delete of download d2 at 3.000 s was not inspected afterwards")
    }
}
