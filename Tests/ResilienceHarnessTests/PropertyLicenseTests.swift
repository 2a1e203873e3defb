import BenchCore
import AppProtocol
import Foundation
import ResilienceHarness
import Testing

@Suite struct PropertyLicenseTests {
    let id = "license-before-background"

    /// d1 (protected video "drm", asset "drm-a") gets a license the server issues at
    /// `issuedAt` and whose response ends `delivery` later; the app claims it at
    /// `claimAt` (default: just after it arrived), fetches its playlist and its first
    /// segment (started at 2.5 s), and goes to the background at 10 s, back at 20 s.
    func protectedDownload(
        issuedAt: Double = 1, delivery: Double? = 0.5, firstByte: Double? = nil, claimAt: Double? = nil
    ) -> TraceBuilder {
        var b = TraceBuilder()
        b.protectedRequest("d1", video: "drm", asset: "drm-a", at: 0)
        b.licenseIssued(asset: "drm-a", at: issuedAt, delivery: delivery, firstByte: firstByte)
        b.licenseAcquired("d1", at: claimAt ?? issuedAt + (delivery ?? 0) + 0.05)
        b.state("d1", .downloading, at: 2)
        b.origin("/videos/drm/400k/index.m3u8", bytes: 300, at: 2.2, duration: 0.1)
        b.origin("/videos/drm/400k/seg1.ts", bytes: 1000, at: 3.2, duration: 0.6)  // ends later, started 2.6 s
        b.origin("/videos/drm/400k/seg0.ts", bytes: 1000, at: 3, duration: 0.5)
        b.prepared(at: 9.9)
        b.lifecycle(foreground: false, at: 10)
        b.lifecycle(foreground: true, at: 20)
        b.state("d1", .downloaded, at: 25)
        return b
    }

    @Test func aLicenseThatArrivedFirstPasses() {
        let verdict = evaluate(id, protectedDownload())
        #expect(verdict.outcome == .passed, "\(verdict)")
        expectEvidence(verdict, at: 1.5, contains: "download d1: license for asset drm-a issued at 1.000 s, its response "
            + "ended at 1.500 s, before its first encrypted segment /videos/drm/400k/seg0.ts started at 2.500 s")
        expectEvidence(verdict, at: 10, contains: "app to background after download d1's license for asset drm-a")
        expectEvidence(verdict, at: 1.55, contains: "download d1 reported licenseAcquired at 1.550 s after its license")
    }

    // (b) the first encrypted segment

    @Test func aSegmentStartedBeforeTheSlowLicenseArrivedFails() {
        // Issued at 1 s, but the (slow) response ends at 3 s: the segment started at 2.5 s.
        let verdict = evaluate(id, protectedDownload(delivery: 2))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 2.5, contains: "origin GET /videos/drm/400k/seg0.ts, the first encrypted segment of "
            + "download d1, started at 2.500 s with no license for it yet: the license server issued a license for "
            + "asset drm-a at 1.000 s, but its response ended only at 3.000 s")
        #expect(verdict.evidence.count == 1, "\(verdict.evidence)")
    }

    @Test func aSegmentBeforeAnyLicenseWasIssuedFails() {
        let verdict = evaluate(id, protectedDownload(issuedAt: 2.7, delivery: 0.1))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 2.5, contains: "issued its first license for asset drm-a only at 2.700 s")
        #expect(verdict.evidence.count == 1, "\(verdict.evidence)")
    }

    @Test func aLicenseWhoseResponseNeverCompletedIsNotHeld() {
        let verdict = evaluate(id, protectedDownload(delivery: nil, claimAt: 1.6))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 2.5, contains: "no response carrying it completed at the origin")
        expectEvidence(verdict, at: 10, contains: "while download d1 had no license")
        expectEvidence(verdict, at: 1.6, contains: "claimed a license it never fetched")
    }

    @Test func aLicenseForAnotherAssetDoesNotCount() {
        var b = TraceBuilder()
        b.protectedRequest("d1", video: "drm", asset: "drm-a", at: 0)
        b.licenseIssued(asset: "other", at: 1)
        b.origin("/videos/drm/400k/seg0.ts", bytes: 1000, at: 3, duration: 0.5)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 2.5, contains: "never issued a license for asset drm-a (no request for it)")
    }

    // (a) the background

    /// d1 is queued (no segment until the foreground returns); its license is issued
    /// at 9.5 s and its response ends at 9.5 + `delivery`; `prepareForBackground()`
    /// returns at 9.9 s (unless `prepared` is false); background at 10 s.
    func queuedDownload(delivery: Double, prepared: Bool = true) -> TraceBuilder {
        var b = TraceBuilder()
        b.protectedRequest("d1", video: "drm", asset: "drm-a", at: 0)
        b.licenseIssued(asset: "drm-a", at: 9.5, delivery: delivery)
        if prepared { b.prepared(at: 9.9) }
        b.lifecycle(foreground: false, at: 10)
        b.lifecycle(foreground: true, at: 20)
        b.origin("/videos/drm/400k/seg0.ts", bytes: 1000, at: 22, duration: 0.5)
        return b
    }

    @Test func goingToTheBackgroundBeforeTheLicenseArrivedFails() {
        let verdict = evaluate(id, queuedDownload(delivery: 1.5))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 10, contains: "app to background (harness, after prepareForBackground) at 10.000 s while download d1 had no "
            + "license: the license server issued a license for asset drm-a at 9.500 s, but its response ended only "
            + "at 11.000 s")
        #expect(verdict.evidence.count == 1, "\(verdict.evidence)")
        #expect(evaluate(id, queuedDownload(delivery: 0.2)).outcome == .passed)
    }

    /// Chaos seed 5: the server issued the license at 9.5 s, WiFi (the only interface
    /// the download may use) went down at 9.8 s and cut the response, and the app went
    /// to the background at 10 s, WiFi still down. No app can hold that license: listed,
    /// not failed. WiFi back before the background: the app had time to ask again.
    @Test func aLicenseAnOutageCutBeforeTheBackgroundIsNotJudged() {
        var cut = TraceBuilder()
        cut.protectedRequest("d1", video: "drm", asset: "drm-a", at: 0)
        cut.interface(.wifi, up: true, at: 0)
        cut.interface(.cellular, up: false, mode: .refuse, at: 0)
        cut.licenseIssued(asset: "drm-a", at: 9.5, delivery: nil)
        cut.interface(.wifi, up: false, mode: .reset, at: 9.8)
        cut.prepared(at: 9.95)
        cut.lifecycle(foreground: false, at: 10)
        let verdict = evaluate(id, cut)
        #expect(verdict.outcome != .failed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 10, contains: "wifi down (reset) at 9.800 s cut every interface it may use")

        var back = TraceBuilder()
        back.protectedRequest("d1", video: "drm", asset: "drm-a", at: 0)
        back.interface(.wifi, up: true, at: 0)
        back.interface(.cellular, up: false, mode: .refuse, at: 0)
        back.licenseIssued(asset: "drm-a", at: 9.5, delivery: nil)
        back.interface(.wifi, up: false, mode: .reset, at: 9.8)
        back.interface(.wifi, up: true, at: 9.9)
        back.prepared(at: 9.95)
        back.lifecycle(foreground: false, at: 10)
        #expect(evaluate(id, back).outcome == .failed, "WiFi was back before the background")
    }

    /// Chaos seed 116 under flaky-wifi, Deadzone's engine: every interface was down when
    /// the protected download was requested, and the app went to the background 26 ms
    /// later, still offline. No app could have asked the license server anything: listed,
    /// not failed. An interface up at any moment in between: the app could have asked.
    @Test func aDownloadRequestedOfflineAndBackgroundedOfflineIsNotJudged() {
        func trace(upInBetween: Bool) -> TraceBuilder {
            var b = TraceBuilder()
            b.interface(.wifi, up: false, mode: .refuse, at: 0)
            b.interface(.cellular, up: false, mode: .refuse, at: 0)
            b.protectedRequest("d1", video: "drm", asset: "drm-a", at: 1)
            if upInBetween {
                b.interface(.wifi, up: true, at: 1.01)
                b.interface(.wifi, up: false, mode: .refuse, at: 1.02)
            }
            b.prepared(at: 1.025)
            b.lifecycle(foreground: false, at: 1.026)
            b.interface(.wifi, up: true, at: 2)
            b.lifecycle(foreground: true, at: 4)
            b.licenseIssued(asset: "drm-a", at: 4.1, delivery: 0.1)
            return b
        }
        let offline = evaluate(id, trace(upInBetween: false))
        #expect(offline.outcome != .failed, "\(offline.evidence)")
        expectEvidence(offline, at: 1.026, contains: "no interface it may use was up from wifi down (refuse) at 0.000 s")
        #expect(evaluate(id, trace(upInBetween: true)).outcome == .failed, "WiFi was up for a moment: the app could have asked")
    }

    @Test func aDownloadThatEndedBeforeTheBackgroundOwesNoLicenseThen() {
        var b = TraceBuilder()
        b.protectedRequest("d1", video: "drm", at: 0)
        b.userAction("cancel", "d1", at: 1)
        b.state("d1", .notDownloaded, at: 1.1)
        b.lifecycle(foreground: false, at: 10)
        #expect(evaluate(id, b).outcome == .passed)
    }

    // (c) requests in the background

    @Test func aLicenseRequestInTheBackgroundFails() {
        var b = protectedDownload()
        b.licenseRefused(asset: "drm-a", at: 12)
        b.licenseRefused(asset: nil, endpoint: .certificate, at: 21, serverFlag: true)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 12, contains: "license server received a license request for asset drm-a while the "
            + "app was in the background (in the background since 10.000 s)")
        expectEvidence(verdict, at: 21, contains: "received a certificate request while the app was in the background "
            + "(server flag: in background)")
        #expect(verdict.evidence.count == 2, "\(verdict.evidence)")
    }

    // (d) the app's claims

    @Test func aClaimBeforeAnyLicenseWasIssuedFails() {
        let verdict = evaluate(id, protectedDownload(claimAt: 0.1))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 0.1, contains: "download d1 reported licenseAcquired (expires 2033-05-18")
        expectEvidence(verdict, at: 0.1, contains: "at 0.100 s, but the license server issued its first license for "
            + "asset drm-a only at 1.000 s: claimed a license it never fetched")
        #expect(verdict.evidence.count == 1, "\(verdict.evidence)")
    }

    /// Seen with a fast engine under subway-commute: issued at 0.7516 s, claimed at
    /// 0.7555 s, the response's end stamped at 0.7561 s. The head was written before the
    /// claim: the app had read the license; the origin stamped the write's end later.
    @Test func aClaimAfterTheResponseBeganAndBeforeItsEndWasStampedPasses() {
        let verdict = evaluate(id, protectedDownload(
            issuedAt: 0.7516, delivery: 0.0045, firstByte: 0.0010, claimAt: 0.7555))
        #expect(verdict.outcome == .passed, "\(verdict)")
        expectEvidence(verdict, at: 0.7555, contains: "download d1 reported licenseAcquired at 0.755 s after its license "
            + "for asset drm-a issued at 0.751 s, its response ended at 0.756 s, whose response began at 0.752 s")
    }

    @Test func aClaimAfterAResponseBeganThatNeverCompletedFails() {
        let verdict = evaluate(id, protectedDownload(delivery: nil, firstByte: 0.001, claimAt: 1.2))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 1.2, contains: "no response carrying it completed at the origin: claimed a license it "
            + "never fetched")
    }

    @Test func aClaimBeforeTheLicenseResponseBeganFails() {
        let verdict = evaluate(id, protectedDownload(firstByte: 0.3, claimAt: 1.2))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 1.2, contains: "its response began only at 1.300 s and ended only at 1.500 s: claimed "
            + "a license it never fetched")
        #expect(verdict.evidence.count == 1, "\(verdict.evidence)")
    }

    @Test func aClaimBeforeTheLicenseResponseEndedWithNoFirstByteTimeFails() {
        let verdict = evaluate(id, protectedDownload(claimAt: 1.2))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 1.2, contains: "its response ended only at 1.500 s: claimed a license it never fetched")
        #expect(verdict.evidence.count == 1, "\(verdict.evidence)")
    }

    // The rest

    /// The app gives up on its license when the server never refused it (its exchange
    /// timed out on a slow link): a failure with no permanent cause, this property's to
    /// report (it followed the app's licenseFailed). The license server's refusal of the
    /// asset (unknown_asset) is a permanent cause: the same failure passes.
    @Test func aLicenseFailureThatFailsTheDownloadFailsUnlessTheServerRefused() {
        var b = TraceBuilder()
        b.protectedRequest("d1", video: "drm", at: 0)
        b.licenseFailed("d1", reason: "the license server did not answer", at: 1)
        b.state("d1", .failed, at: 1.1)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 1.1, contains: "download d1 requested → failed after its license failed at 1.000 s: "
            + "the license server did not answer")
        #expect(verdict.evidence.first?.obligation == "fail-only-for-cause")
        #expect(evaluate("justified-failure", b).outcome == .passed, "reported once, by license-before-background")

        var refused = TraceBuilder()
        refused.protectedRequest("d1", video: "drm", at: 0)
        refused.licenseRefused(asset: "drm", code: .unknownAsset, at: 0.9, serverFlag: false)
        refused.licenseFailed("d1", reason: "refused: unknown_asset", at: 1)
        refused.state("d1", .failed, at: 1.1)
        let justified = evaluate(id, refused)
        #expect(justified.outcome == .passed, "\(justified.evidence)")
        expectEvidence(justified, at: 1.1, contains: "for a permanent cause: the license server refused a license request "
            + "(unknown_asset) at 0.900 s")
    }

    @Test func aProtectedDownloadWithoutARecordedKeyCannotPass() {
        var b = protectedDownload()
        b.request("d2", video: "drm", at: 0.5, protected: true)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 0.5, contains: "download d2 of protected video drm has no license key recorded by the harness")
    }

    @Test func clearDownloadsAreNotApplicable() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.origin("/videos/clear/400k/seg0.ts", bytes: 1000, at: 3)
        b.lifecycle(foreground: false, at: 10)
        b.licenseAcquired("d1", at: 1)  // a claim about a clear video: nothing to check
        #expect(evaluate(id, b).outcome == .notApplicable)
    }
}

@Suite struct LicenseServerLogTests {
    @Test func answersPairWithTheirRequestsAndLicensesWithTheResponsesThatCarriedThem() {
        var b = TraceBuilder()
        b.protectedRequest("d1", video: "v1", asset: "a1", at: 0)
        b.licenseIssued(asset: "a1", at: 1, delivery: 1.5)
        // a1's response (0.99–2.5 s) spans a2's issue too, but it carried a1's license.
        b.licenseIssued(asset: "a2", at: 1.2, delivery: 1.5)
        b.licenseRefused(asset: "a1", code: .unknownKey, at: 4, serverFlag: false)
        b.licenseIssued(asset: "a1", at: 5, delivery: nil)
        b.origin("/videos/v1/seg0.ts", bytes: 10, at: 6, duration: 2)  // not a license path
        let log = b.trace.licenseServer
        #expect(log.requests.map(\.t) == [ns(1), ns(1.2), ns(4), ns(5)])
        #expect(log.requests(forAsset: "a1").count == 3)
        #expect(log.issued.map(\.assetID) == ["a1", "a2", "a1"])
        #expect(log.issued.map(\.requestedAt) == [ns(1), ns(1.2), ns(5)])
        #expect(log.issued.map(\.deliveredAt) == [ns(2.5), ns(2.7), nil])
        #expect(log.refused(forAsset: "a1").map(\.reason) == ["unknown_key"])
        #expect(log.refused.first?.requestedAt == ns(4))
        #expect(log.delivered(forAsset: "a1", before: ns(2.5)) == nil)
        #expect(log.delivered(forAsset: "a1", before: ns(2.6))?.t == ns(1))
        #expect(b.trace.download("d1")?.licenseKey == CatalogLicenseKey(assetID: "a1", keyID: "k1", licenseURL: "/license"))
    }

    @Test func theLicenseKeyEventReadsAsDocumented() throws {
        let entry = TraceEntry(t: 1_200_000_000, .harness(.licenseKeyOf(
            download: "dl-3", assetID: "protected", keyID: "6f1c2a9e0b7d4e35a8c1f0e2d3b4a596", licenseURL: "/license")))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The line docs/report-schema.md shows.
        #expect(String(decoding: try encoder.encode(entry), as: UTF8.self)
            == #"{"event":{"assetID":"protected","download":"dl-3","keyID":"6f1c2a9e0b7d4e35a8c1f0e2d3b4a596","#
            + #""licenseURL":"/license","type":"licenseKeyOf"},"source":"harness","t":1200000000}"#)
        #expect(try JSONDecoder().decode(TraceEntry.self, from: try encoder.encode(entry)) == entry)
    }

    @Test func theHarnessReadsTheKeyFromTheCatalogEntry() {
        let system = KeySystemDocument(
            name: "com.apple.fps.1_0", certificateURL: "/license/certificate", licenseURL: "/license",
            keyURI: "skd://protected/key-1")
        let document = VideoDocument(
            id: "protected", name: "P", duration: 10, poster: "", thumbnail: "", textTracks: [], offlineEnabled: true,
            sources: [SourceDocument(url: "/videos/protected/master.m3u8", type: SourceDocument.hlsType, keySystems: [system])])
        #expect(CatalogLicenseKey(document) == CatalogLicenseKey(assetID: "protected", keyID: "key-1", licenseURL: "/license"))
        var clear = document
        clear.sources[0].keySystems = [KeySystemDocument(name: "aes-128", keyURL: "/videos/protected/key")]
        #expect(CatalogLicenseKey(clear) == nil)
    }
}
