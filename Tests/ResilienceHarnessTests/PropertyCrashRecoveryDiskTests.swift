import BenchCore
import AppProtocol
import ResilienceHarness
import Testing

/// `crash-recovery`'s Range rule (what the disk held in part at a kill is resumed from
/// there) and its check of the app's claims against the disk.
@Suite struct PropertyCrashRecoveryDiskTests {
    let id = "crash-recovery"
    typealias Base = PropertyCrashRecoveryTests

    @Test func aPartialCopyResumedFromItsSizeOnDiskPasses() {
        var b = Base.crash(after: .crash)
        Base.resumed(&b)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 12, contains: "origin GET /videos/clear/400k/seg2.ts with Range bytes=400- "
            + "resumed: the disk held 400 bytes of /videos/clear/400k/seg2.ts at the kill at 10.000 s")
    }

    /// Asking from fewer bytes than the disk held fetches the difference again; from
    /// byte 0 (or without Range) all of them; from more leaves a gap.
    @Test(arguments: [
        (nil, "400 bytes were fetched again"), ("bytes=0-", "400 bytes were fetched again"),
        ("bytes=100-", "300 bytes were fetched again"), ("bytes=500-", "bytes 400 to 499 are missing"),
    ] as [(String?, String)])
    func aPartialCopyFetchedFromElsewhereFails(_ range: String?, _ effect: String) {
        var b = Base.crash(after: .crash)
        b.origin(Base.seg2, bytes: 1000, range: range, at: 12.5, duration: 0.5)
        Base.resumed(&b)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        let asked = range.map { "Range \($0)" } ?? "no Range (from byte 0)"
        expectEvidence(verdict, at: 12, contains: "origin GET /videos/clear/400k/seg2.ts asked \(asked) after the kill, "
            + "but the disk held 400 bytes of /videos/clear/400k/seg2.ts at the kill at 10.000 s: \(effect); it must "
            + "resume with Range bytes=400-")
        #expect(verdict.evidence.count == 1, "only the first request after the launch is judged: \(verdict.evidence)")
    }

    @Test func aPartialCopyNotRequestedAgainIsOnlyListed() {
        var b = Base.crash(after: .crash)
        b.userAction("cancel", "d1", at: 12)
        b.state("d1", .notDownloaded, at: 12.1)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 10, contains: "the disk held 400 bytes of /videos/clear/400k/seg2.ts at the kill "
            + "at 10.000 s; not requested again before the next kill")
    }

    @Test func aPartialClaimTheDiskAgreesWithPasses() {
        var b = Base.crash(after: .crash)
        b.partials([AppPartialSegment(download: "d1", stream: "video", index: 2, path: Base.seg2, bytes: 400)], at: 11)
        Base.resumed(&b)
        #expect(evaluate(id, b).outcome == .passed)
    }

    /// The app's `partialSegmentsFound` is a claim: another size, a path held whole or
    /// not at all, is a disagreement with the disk.
    @Test(arguments: [
        (Base.seg2, 300, "400 bytes of it"), (Base.seg1, 500, "the whole of it"),
        ("/videos/clear/400k/seg3.ts", 200, "no copy of it"),
    ] as [(String, Int64, String)])
    func aPartialClaimTheDiskContradictsFails(_ path: String, _ bytes: Int64, _ found: String) {
        var b = Base.crash(after: .crash)
        b.partials([AppPartialSegment(download: "d1", stream: "video", index: 2, path: path, bytes: bytes)], at: 11)
        Base.resumed(&b)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 11, contains: "download d1 reported \(bytes) bytes of \(path) partly stored at its "
            + "launch, but the app's disk held \(found) at the kill at 10.000 s")
        #expect(verdict.evidence.count == 1, "\(verdict.evidence)")
    }

    /// A `.part` that had received every byte before the kill (not yet renamed) is
    /// whole on disk: the app calling it partial with all its bytes agrees.
    @Test func aPartialClaimOfEveryByteAgreesWithAWholeCopy() {
        var b = Base.crash(after: .crash)
        b.partials([AppPartialSegment(download: "d1", stream: "video", index: 1, path: Base.seg1, bytes: 1000)], at: 11)
        b.origin(Base.seg1, bytes: 0, range: "bytes=1000-", at: 12.5, duration: 0.5, status: 416)
        Base.resumed(&b)
        #expect(evaluate(id, b).outcome == .passed)
    }

    @Test func aStoredClaimTheDiskDoesNotHoldFails() {
        var b = Base.crash(after: .crash)
        b.stored("d1", path: "/videos/clear/400k/seg3.ts", bytes: 1000, index: 3, at: 5)
        Base.resumed(&b)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 10, contains: "download d1 reported /videos/clear/400k/seg3.ts stored at 5.000 s, "
            + "but the app's disk held no copy of it at the kill at 10.000 s")
    }

    /// A download the user deleted before the kill may leave nothing on disk.
    @Test func storedClaimsOfADeletedDownloadAreNotChecked() {
        var b = Base.crash(after: .crash)
        b.request("d2", video: "http-key", at: 0.5)
        b.state("d2", .downloading, at: 1)
        b.stored("d2", path: "/videos/http-key/400k/seg0.ts", bytes: 1000, index: 0, at: 3)
        b.userAction("delete", "d2", at: 6)
        b.state("d2", .notDownloaded, at: 6.1)
        Base.resumed(&b)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
    }
}
