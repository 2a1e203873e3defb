import AppProtocol
import ResilienceHarness
import Testing

/// `integrity` judges from the harness's own reads of the package (`packageRead`),
/// against the renditions the origin sent; what the app says is checked against them.
@Suite struct PropertyIntegrityTests {
    let id = "integrity"
    typealias F = PackageFixtures

    @Test func aWholePackageReadAtTheReportAndAtAnInspectionPasses() {
        var b = F.downloaded()
        b.packageRead("d1", F.package(), at: 5.01)
        b.inspect(inspection("d1", segmentHashes: F.manifest, packageComplete: true), at: 6)
        b.packageRead("d1", F.package(), cause: .inspected, at: 6.01)
        let verdict = evaluate(id, b, F.context())
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 5.01, contains: "download d1, package read (downloaded): 1 rendition whole, "
            + "3 segments byte-identical to the origin's")
        expectEvidence(verdict, at: 6.01, contains: "package read (inspected): 1 rendition whole")
    }

    @Test func aPackageMissingASegmentFailsWhateverTheAppSays() {
        let missing = "/videos/clear/400k/seg2.ts"
        var b = F.downloaded()
        b.packageRead("d1", F.package([F.playlist(missing: [missing])]), at: 5.01)
        // The app claims a complete package, and hashes that all match the origin.
        b.inspect(inspection("d1", segmentHashes: F.manifest, packageComplete: true), at: 6)
        b.packageRead("d1", F.package([F.playlist(missing: [missing])]), cause: .inspected, at: 6.01)
        let verdict = evaluate(id, b, F.context())
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 5.01, contains: "video.m3u8 (/videos/clear/400k/index.m3u8): 2 of 3 segments "
            + "present, 2 byte-identical; missing \(missing)")
        expectEvidence(verdict, at: 5.01, contains: "the app said it stored 1 segment the package read at 5.010 s "
            + "does not hold as the origin serves it: \(missing) (missing)")
        expectEvidence(verdict, at: 6, contains: "inspection of download d1 claims its package complete; the harness's read")
        expectEvidence(verdict, at: 6.01, contains: "package read (inspected): video.m3u8")
    }

    @Test func aSegmentWithOtherBytesFails() {
        var b = F.downloaded()
        b.packageRead("d1", F.package([F.playlist(mismatching: ["/videos/clear/400k/seg1.ts"])]), at: 5.01)
        let verdict = evaluate(id, b, F.context())
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 5.01, contains: "3 of 3 segments present, 2 byte-identical; differing /videos/clear/400k/seg1.ts")
        expectEvidence(verdict, at: 5.01, contains: "/videos/clear/400k/seg1.ts (other bytes)")
    }

    @Test func aReportWithNoPackageToReadFails() {
        // A read while still downloading does not count for the report that follows.
        var b = F.downloaded()
        b.packageRead("d1", F.package(), cause: .inspected, at: 4.9)
        var verdict = evaluate(id, b, F.context())
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 5, contains: "download d1 reported downloaded, but named no package the harness could read")
        // The app reported it downloaded but named no package in time.
        b.packageRead(
            "d1", PackageFindings(directory: "", problems: ["the app named no package within 5.000 s of reporting it downloaded"]),
            master: nil, at: 10)
        verdict = evaluate(id, b, F.context())
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 10, contains: "download d1, package read (downloaded): the app named no package within 5.000 s")
    }

    @Test func aRenditionTheOriginSentThatThePackageLacksFails() {
        let audio = "/videos/clear/audio_fr/index.m3u8"
        var b = F.downloaded()
        b.origin("/videos/clear/audio_fr/seg0.ts", bytes: 50, at: 2.5)
        b.packageRead("d1", F.package(), at: 5.01)
        let verdict = evaluate(id, b, F.context(more: [audio: ["/videos/clear/audio_fr/seg0.ts"]]))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 5.01, contains: "no playlist of the package holds \(audio), whose segments the origin sent")
        // The same package passes when the origin never sent that rendition.
        var alone = F.downloaded()
        alone.packageRead("d1", F.package(), at: 5.01)
        #expect(evaluate(id, alone, F.context(more: [audio: ["/videos/clear/audio_fr/seg0.ts"]])).outcome == .passed)
    }

    @Test func aReportBeforeTheOriginSentTheLastSegmentFailsEvenIfTheReadIsWhole() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.origin(F.segments[0], bytes: 100, at: 2)
        b.origin(F.segments[1], bytes: 100, at: 3)
        b.state("d1", .downloaded, at: 4)
        b.origin(F.segments[2], bytes: 100, at: 4.5)
        b.packageRead("d1", F.package(), at: 4.6)
        let verdict = evaluate(id, b, F.context())
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 4, contains: "download d1 reported downloaded before the origin had sent "
            + "/videos/clear/400k/seg2.ts (the first of their responses began at 4.500 s)")
        // A fast app: the last response began at 3.9 s, the app reported downloaded at 4 s,
        // and the origin stamped its write complete at 4.05 s.
        var fast = TraceBuilder()
        fast.request("d1", video: "clear", at: 0)
        fast.state("d1", .downloading, at: 1)
        fast.origin(F.segments[0], bytes: 100, at: 2)
        fast.origin(F.segments[1], bytes: 100, at: 3)
        fast.state("d1", .downloaded, at: 4)
        fast.origin(F.segments[2], bytes: 100, at: 4.05, duration: 0.2, firstByte: 0.05)
        fast.packageRead("d1", F.package(), at: 4.6)
        #expect(evaluate(id, fast, F.context()).outcome == .passed, "\(evaluate(id, fast, F.context()).evidence)")
    }

    @Test func aSegmentTheAppSaysItStoredButTheOriginNeverSentFails() {
        var b = F.downloaded()
        b.stored("d1", path: "/videos/clear/1200k/seg0.ts", bytes: 100, index: 0, at: 2.2)
        b.packageRead("d1", F.package(), at: 5.01)
        let verdict = evaluate(id, b, F.context(more: ["/videos/clear/1200k/index.m3u8": ["/videos/clear/1200k/seg0.ts"]]))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 2.2, contains: "download d1: the app said it stored /videos/clear/1200k/seg0.ts "
            + "(video #0), which the origin never sent it")
        expectEvidence(verdict, at: 5.01, contains: "/videos/clear/1200k/seg0.ts (no playlist of /videos/clear/1200k/index.m3u8)")
        // Sent after the claim is not sent before it.
        var late = F.downloaded()
        late.stored("d1", path: "/videos/clear/400k/seg9.ts", bytes: 1, index: 9, at: 2.2)
        late.origin("/videos/clear/400k/seg9.ts", bytes: 1, at: 2.3)
        late.packageRead("d1", F.package(), at: 5.01)
        expectEvidence(evaluate(id, late, F.context()), at: 2.2, contains: "which the origin never sent it")
        // A fast app: the response began at 2.15 s, the app stored it and said so at 2.2 s,
        // and the origin stamped its write complete at 2.3 s. Not a lie.
        var fast = F.downloaded()
        fast.stored("d1", path: "/videos/clear/400k/seg9.ts", bytes: 1, index: 9, at: 2.2)
        fast.origin("/videos/clear/400k/seg9.ts", bytes: 1, at: 2.3, duration: 0.2, firstByte: 0.05)
        fast.packageRead("d1", F.package(), at: 5.01)
        #expect(!evaluate(id, fast, F.context()).evidence.contains { $0.text.contains("never sent it") },
                "\(evaluate(id, fast, F.context()).evidence)")
        // The same, its response begun only after the claim: a claim ahead of every byte.
        var ahead = F.downloaded()
        ahead.stored("d1", path: "/videos/clear/400k/seg9.ts", bytes: 1, index: 9, at: 2.2)
        ahead.origin("/videos/clear/400k/seg9.ts", bytes: 1, at: 2.3, duration: 0.2, firstByte: 0.15)
        ahead.packageRead("d1", F.package(), at: 5.01)
        expectEvidence(evaluate(id, ahead, F.context()), at: 2.2, contains: "which the origin never sent it")
    }

    @Test func hashClaimsThatDisagreeWithTheOriginFail() {
        var b = F.downloaded()
        b.packageRead("d1", F.package(), at: 5.01)
        var hashes = F.manifest
        hashes["/videos/clear/400k/seg1.ts"] = "ff00"
        hashes["/videos/clear/9000k/seg1.ts"] = "aa"
        b.inspect(inspection("d1", segmentHashes: hashes), at: 6)
        let verdict = evaluate(id, b, F.context())
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 6, contains: "inspection of download d1 claims 2 segment hashes that disagree with the "
            + "origin: /videos/clear/400k/seg1.ts hashes ff00, the origin serves hash1, /videos/clear/9000k/seg1.ts "
            + "(the origin serves nothing there)")
    }

    @Test func anIncompleteClaimOfAWholePackageFails() {
        var b = F.downloaded()
        b.packageRead("d1", F.package(), at: 5.01)
        b.inspect(inspection("d1", segmentHashes: F.manifest, packageComplete: false), at: 6)
        b.packageRead("d1", F.package(), cause: .inspected, at: 6.01)
        let verdict = evaluate(id, b, F.context())
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 6, contains: "claims its package incomplete; the harness's read of it found every rendition whole")
    }

    @Test func aReadAfterTheUserDeletedTheDownloadIsNotJudged() {
        var b = F.downloaded()
        b.packageRead("d1", F.package(), at: 5.01)
        b.userAction("delete", "d1", at: 7)
        b.packageRead("d1", F.package([F.playlist(missing: F.segments)]), cause: .inspected, at: 7.1)
        b.change("d1", from: .downloaded, to: .notDownloaded, at: 7.2)
        let verdict = evaluate(id, b, F.context())
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
    }

    /// Chaos seed 26: the user tried to cancel a download that had just completed, the
    /// app refused (nothing in flight), and the harness's read of the package came after
    /// the refusal. A refused cancel removes nothing: the read is judged.
    @Test func aReadAfterARefusedCancelIsJudged() {
        var whole = F.downloaded()
        whole.userAction("cancel", "d1", at: 5.005, error: "cannot cancelRequested while downloaded")
        whole.packageRead("d1", F.package(), at: 5.01)
        let verdict = evaluate(id, whole, F.context())
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        var broken = F.downloaded()
        broken.userAction("cancel", "d1", at: 5.005, error: "cannot cancelRequested while downloaded")
        broken.packageRead("d1", F.package([F.playlist(missing: F.segments)]), at: 5.01)
        #expect(evaluate(id, broken, F.context()).outcome == .failed, "the read is judged, so a broken package fails")
    }

    @Test func withoutADownloadedReportOrTheOriginsRenditionsItIsNotApplicable() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.packageRead("d1", F.package([F.playlist(missing: F.segments)]), cause: .inspected, at: 2)
        #expect(evaluate(id, b, F.context()).outcome == .notApplicable)
        var done = F.downloaded()
        done.packageRead("d1", F.package(), at: 5.01)
        #expect(evaluate(id, done).outcome == .notApplicable)
    }
}
