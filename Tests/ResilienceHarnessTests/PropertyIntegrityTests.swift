import AppProtocol
import ResilienceHarness
import Testing

@Suite struct PropertyIntegrityTests {
    let id = "integrity"
    let manifest = ["/videos/clear/400k/seg0.ts": "aa11", "/videos/clear/400k/seg1.ts": "bb22"]

    /// d1 stores two segments, completes at 5 s and is inspected at 6 s with `hashes`.
    func downloaded(hashes: [String: String]) -> TraceBuilder {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.stored("d1", path: "/videos/clear/400k/seg0.ts", bytes: 100, index: 0, at: 2)
        b.stored("d1", path: "/videos/clear/400k/seg1.ts", bytes: 100, index: 1, at: 3)
        b.state("d1", .downloaded, at: 5)
        b.inspect(inspection("d1", segmentHashes: hashes), at: 6)
        return b
    }

    @Test func matchingHashesPass() {
        let b = downloaded(hashes: ["/videos/clear/400k/seg0.ts": "AA11", "/videos/clear/400k/seg1.ts": "bb22"])
        let verdict = evaluate(id, b, PropertyContext(hashManifest: manifest))
        #expect(verdict.outcome == .passed)
        expectEvidence(verdict, at: 6, contains: "download d1: 2 segment hashes matched the origin's manifest")
    }

    @Test func aDownloadDeletedAfterItsInspectionIsStillJudged() {
        var b = downloaded(hashes: ["/videos/clear/400k/seg0.ts": "aa11", "/videos/clear/400k/seg1.ts": "ff00"])
        b.userAction("delete", "d1", at: 7)
        b.change("d1", from: .downloaded, to: .notDownloaded, at: 7)
        b.inspect(inspection("d1", known: false), at: 8)
        let verdict = evaluate(id, b, PropertyContext(hashManifest: manifest))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 6, contains: "/videos/clear/400k/seg1.ts hashes ff00")
    }

    @Test func anInspectionAfterTheNextChangeDoesNotCount() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.stored("d1", path: "/videos/clear/400k/seg0.ts", bytes: 100, index: 0, at: 2)
        b.state("d1", .downloaded, at: 5)
        b.change("d1", from: .downloaded, to: .notDownloaded, at: 6)
        b.inspect(inspection("d1", known: false), at: 7)
        let verdict = evaluate(id, b, PropertyContext(hashManifest: manifest))
        #expect(verdict.outcome == .notApplicable)
    }

    @Test func aMismatchFails() {
        let b = downloaded(hashes: ["/videos/clear/400k/seg0.ts": "aa11", "/videos/clear/400k/seg1.ts": "ff00"])
        let verdict = evaluate(id, b, PropertyContext(hashManifest: manifest))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 6, contains: "download d1: /videos/clear/400k/seg1.ts hashes ff00, the origin's manifest says bb22")
        #expect(verdict.evidence.count == 1)
    }

    @Test func aMissingHashFails() {
        let b = downloaded(hashes: ["/videos/clear/400k/seg0.ts": "aa11"])
        let verdict = evaluate(id, b, PropertyContext(hashManifest: manifest))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 6, contains: "inspection of download d1 has no hash for stored segment /videos/clear/400k/seg1.ts")
    }

    @Test func aPathTheManifestLacksFails() {
        let b = downloaded(hashes: ["/videos/clear/400k/seg0.ts": "aa11", "/videos/clear/400k/seg1.ts": "bb22"])
        let verdict = evaluate(id, b, PropertyContext(hashManifest: ["/videos/clear/400k/seg0.ts": "aa11"]))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 6, contains: "stored /videos/clear/400k/seg1.ts, which the origin's manifest does not list")
    }

    @Test func withoutManifestOrInspectionItIsNotApplicable() {
        let b = downloaded(hashes: [:])
        #expect(evaluate(id, b).outcome == .notApplicable)
        var early = TraceBuilder()
        early.request("d1", video: "clear", at: 0)
        early.state("d1", .downloading, at: 1)
        early.inspect(inspection("d1", state: .downloading), at: 2)
        early.state("d1", .downloaded, at: 5)
        let verdict = evaluate(id, early, PropertyContext(hashManifest: manifest))
        #expect(verdict.outcome == .notApplicable)
        expectEvidence(verdict, at: 5, contains: "download d1 completed but was not inspected afterwards")
    }
}
