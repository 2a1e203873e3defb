import BenchCore
import AppProtocol
import ResilienceHarness
import Testing

/// Every property that compares what the app did with a log's time orders them as
/// causality allows (docs/evidence.md, "Causality"): a request by when the conditioner
/// read it from the app (`appSent`), not when a slow link delivered it to the origin; a
/// license by when its response began, not when the origin stamped its end. Each case
/// has a fast app (it acts within a millisecond of what it receives) or a slow link
/// that must not be failed, and a control that must.
@Suite struct CausalityTests {
    // MARK: pause-holds

    /// d1 is paused at 5 s (suspended at 5.1 s) and resumed at 9 s. seg1 is read by the
    /// conditioner at `sent`; a slow link (slow-3g: 1 s each way) or a blackhole delivers
    /// it to the origin at `reached`.
    func pause(sent: Double, reached: Double) -> TraceBuilder {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.origin("/videos/clear/400k/seg0.ts", bytes: 1000, at: 3, duration: 2)
        b.userAction("pause", "d1", at: 5)
        b.state("d1", .suspended(.user), at: 5.1)
        b.sentRequest("/videos/clear/400k/seg1.ts", connection: 7, sent: sent, reached: reached)
        b.userAction("resume", "d1", at: 9)
        b.state("d1", .downloading, at: 9.05)
        b.state("d1", .downloaded, at: 12)
        return b
    }

    @Test func aRequestSentBeforeThePauseThatASlowLinkDeliveredLaterIsNotCounted() {
        let verdict = evaluate("pause-holds", pause(sent: 5.099, reached: 6.8))
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
    }

    @Test func aRequestSentInThePauseFailsWhateverTheLinkDid() {
        let verdict = evaluate("pause-holds", pause(sent: 7, reached: 8))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 7, contains: "origin GET /videos/clear/400k/seg1.ts sent by 7.000 s (read by the "
            + "conditioner), started at 8.000 s (1000 bytes) while download d1 was paused (since 5.100 s, until 9.000 s)")
    }

    // MARK: license-before-background

    let license = "license-before-background"

    /// A fast app: its license response's head is written at 9.5005 s, the app has it,
    /// answers `prepareForBackground` and the harness sends it to the background at
    /// 9.502 s, before the origin stamps the response's end (9.51 s).
    @Test func aFastAppThatWentToTheBackgroundBeforeTheEndStampHeldItsLicense() {
        var b = TraceBuilder()
        b.protectedRequest("d1", video: "drm", asset: "drm-a", at: 0)
        b.licenseIssued(asset: "drm-a", at: 9.5, delivery: 0.01, firstByte: 0.0005)
        b.licenseAcquired("d1", at: 9.501)
        b.lifecycle(foreground: false, at: 9.502)
        b.lifecycle(foreground: true, at: 20)
        let verdict = evaluate(license, b)
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 9.502, contains: "app to background after download d1's license for asset drm-a")
    }

    /// A fast app sends its first encrypted segment request 2.5 ms after the license
    /// response began, and it reaches the origin before the origin stamps the license
    /// response's end.
    @Test func aFastAppsFirstSegmentAfterTheLicenseBeganPasses() {
        var b = TraceBuilder()
        b.protectedRequest("d1", video: "drm", asset: "drm-a", at: 0)
        b.licenseIssued(asset: "drm-a", at: 1, delivery: 0.01, firstByte: 0.0005)
        b.licenseAcquired("d1", at: 1.001)
        b.sentRequest("/videos/drm/400k/seg0.ts", connection: 3, sent: 1.003, reached: 1.004)
        b.lifecycle(foreground: false, at: 10)
        let verdict = evaluate(license, b)
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 1.0005, contains: "before its first encrypted segment /videos/drm/400k/seg0.ts was sent "
            + "by 1.003 s (read by the conditioner)")
    }

    /// The control: a segment request the app sent before its license began fails, even
    /// when a slow link delivered it to the origin after the license's response ended.
    @Test func aSegmentSentBeforeTheLicenseFailsEvenWhenTheLinkDeliveredItAfter() {
        var b = TraceBuilder()
        b.protectedRequest("d1", video: "drm", asset: "drm-a", at: 0)
        b.licenseIssued(asset: "drm-a", at: 1, delivery: 0.1)
        b.sentRequest("/videos/drm/400k/seg0.ts", connection: 3, sent: 0.5, reached: 1.5)
        let verdict = evaluate(license, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 0.5, contains: "the first encrypted segment of download d1, was sent by 0.500 s (read "
            + "by the conditioner) with no license for it yet: the license server issued its first license for asset "
            + "drm-a only at 1.000 s")
    }

    /// A license request read by the conditioner in the foreground reaches the server
    /// after the background began (the link held it): not a request made in the
    /// background. One sent in the background is.
    @Test(arguments: [(9.9, false), (10.2, true)])
    func aLicenseRequestIsJudgedByWhenTheAppSentIt(_ sent: Double, _ fails: Bool) {
        var b = TraceBuilder()
        b.protectedRequest("d1", video: "drm", asset: "drm-a", at: 0)
        b.licenseIssued(asset: "drm-a", at: 1, delivery: 0.1)
        b.lifecycle(foreground: false, at: 10)
        b.sentRequest("/license", connection: 5, sent: sent, reached: 10.5, duration: 0.2, bytes: 40)
        b.licenseRefused(asset: "drm-a", at: 10.6)
        b.lifecycle(foreground: true, at: 20)
        let verdict = evaluate(license, b)
        if fails {
            #expect(verdict.outcome == .failed)
            expectEvidence(verdict, at: 10.6, contains: "license server received a license request for asset drm-a while "
                + "the app was in the background (in the background since 10.000 s)")
        } else {
            #expect(verdict.outcome == .passed, "\(verdict.evidence)")
            expectEvidence(verdict, at: 10.6, contains: "in the background since 10.000 s, but the app had sent it by "
                + "9.900 s (read by the conditioner) in the foreground: the link held it")
        }
    }

    // MARK: crash-recovery

    /// The app asked for seg2 from byte 0 just before it was killed; the link delivered
    /// that request to the origin after the relaunch. It is the dead process's, not a
    /// relaunch that ignored the 400 bytes on disk. Sent after the relaunch, it is.
    @Test(arguments: [(9.99, false), (11.2, true)])
    func aRequestIsTheRelaunchedAppsOnlyWhenItWasSentAfterTheKill(_ sent: Double, _ fails: Bool) {
        var b = PropertyCrashRecoveryTests.crash(after: .crash)
        b.sentRequest(PropertyCrashRecoveryTests.seg2, connection: 9, sent: sent, reached: 11.5, duration: 0.5)
        PropertyCrashRecoveryTests.resumed(&b)
        let verdict = evaluate("crash-recovery", b)
        if fails {
            #expect(verdict.outcome == .failed)
            expectEvidence(verdict, at: 11.5, contains: "asked no Range (from byte 0) after the kill")
        } else {
            #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        }
    }
}
