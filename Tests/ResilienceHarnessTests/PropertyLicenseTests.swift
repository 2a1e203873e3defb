import BenchCore
import AppProtocol
import ResilienceHarness
import Testing

@Suite struct PropertyLicenseTests {
    let id = "license-before-background"

    /// d1 (protected video "drm") acquires its license at `licenseAt`, fetches its
    /// playlist and first segment, and the app goes to the background at 10 s.
    func protectedDownload(licenseAt: Double? = 1.5) -> TraceBuilder {
        var b = TraceBuilder()
        b.request("d1", video: "drm", at: 0, protected: true)
        b.licenseRequest(at: 1)
        if let licenseAt { b.licenseAcquired("d1", at: licenseAt) }
        b.state("d1", .downloading, at: 2)
        b.origin("/videos/drm/400k/index.m3u8", bytes: 300, at: 2.2, duration: 0.1)
        b.origin("/videos/drm/400k/seg0.ts", bytes: 1000, at: 3, duration: 0.5)
        b.lifecycle(foreground: false, at: 10)
        b.lifecycle(foreground: true, at: 20)
        b.state("d1", .downloaded, at: 25)
        return b
    }

    @Test func licenseComesFirst() {
        let verdict = evaluate(id, protectedDownload())
        #expect(verdict.outcome == .passed)
        expectEvidence(verdict, at: 1.5, contains: "before its first encrypted segment /videos/drm/400k/seg0.ts at 2.500 s")
        expectEvidence(verdict, at: 10, contains: "app to background after download d1's license (acquired at 1.500 s)")
    }

    @Test func aSegmentBeforeTheLicenseFails() {
        let verdict = evaluate(id, protectedDownload(licenseAt: 2.7))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 2.5, contains: "origin GET /videos/drm/400k/seg0.ts, the first encrypted segment of download d1, but its license was acquired at 2.700 s")
        #expect(verdict.evidence.count == 1)
    }

    @Test func goingToTheBackgroundWithoutALicenseFails() {
        let verdict = evaluate(id, protectedDownload(licenseAt: nil))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 10, contains: "app to background while download d1 had no license; it never acquired a license")
        expectEvidence(verdict, at: 2.5, contains: "it never acquired a license")
    }

    @Test func aLicenseRequestInTheBackgroundFails() {
        var b = protectedDownload()
        b.licenseRequest(at: 12)
        b.licenseRequest(at: 21, serverFlag: true)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 12, contains: "license server received a license request for asset while the app was in the background (in the background since 10.000 s)")
        expectEvidence(verdict, at: 21, contains: "(server flag: in background)")
    }

    @Test func aLicenseFailureThatFailsTheDownloadFails() {
        var b = TraceBuilder()
        b.request("d1", video: "drm", at: 0, protected: true)
        b.licenseFailed("d1", reason: "refused: asset_unknown", at: 1)
        b.state("d1", .failed, at: 1.1)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 1.1, contains: "download d1 requested → failed after its license failed at 1.000 s: refused: asset_unknown")
    }

    @Test func clearDownloadsAreNotApplicable() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.origin("/videos/clear/400k/seg0.ts", bytes: 1000, at: 3)
        b.lifecycle(foreground: false, at: 10)
        #expect(evaluate(id, b).outcome == .notApplicable)
    }
}
