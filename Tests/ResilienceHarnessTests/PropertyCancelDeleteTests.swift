import Foundation
import AppProtocol
import ResilienceHarness
import Testing

@Suite struct PropertyCancelDeleteTests {
    let id = "cancel-delete-clean"

    @Test func aCleanCancelPasses() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.userAction("cancel", "d1", at: 2)
        b.state("d1", .canceling, at: 2)
        b.state("d1", .notDownloaded, at: 2.5)
        b.inspect(inspection("d1", known: false, state: nil, files: 0, playable: false), at: 3)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed)
        expectEvidence(verdict, at: 3, contains: "after the cancel of download d1 at 2.000 s: unknown, 0 files, no license")
    }

    @Test func leftoversAfterADeleteFail() {
        var b = TraceBuilder()
        b.request("d1", video: "drm", at: 0, protected: true)
        b.userAction("delete", "d1", at: 5)
        b.inspect(
            inspection("d1", known: false, state: nil, files: 2, licenseExpiration: Date(timeIntervalSince1970: 0)), at: 6)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 6, contains: "inspection after the delete of download d1 at 5.000 s: 2 files remain; a license")
    }

    @Test func aStillKnownDownloadFails() {
        var b = TraceBuilder()
        b.userAction("cancel", "d1", at: 5)
        b.inspect(inspection("d1", known: true, state: .canceling, files: 0), at: 6)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 6, contains: "the engine still knows it (canceling)")
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
