import AppProtocol
import FixtureOrigin
import Foundation
import ResilienceHarness
import Testing

/// Whether a license expired is the license server's word (the expiry it signed), never
/// the app's; the app must then refuse playback, and its own expiry claim must agree.
@Suite struct PropertyExpiredRentalTests {
    let id = "expired-rental-refuses-playback"
    let epoch = Date(timeIntervalSince1970: 1_000_000)
    var context: PropertyContext { PropertyContext(epochWallClock: epoch) }

    /// p1 (asset "a") is requested at 0 s; the server issues it a license at 1 s that
    /// expires `expiresAfter` seconds after the epoch (nil: a purchase).
    func rental(expiresAfter seconds: Int64?) -> TraceBuilder {
        var b = TraceBuilder()
        b.protectedRequest("p1", video: "protected", asset: "a", at: 0)
        b.add(1, .license(LicenseEvent(atNanoseconds: ns(1), kind: .licenseIssued(
            assetID: "a", keyID: "k1", nonce: "n", terms: seconds == nil ? .purchase : .rental,
            expiresAt: seconds.map { 1_000_000 + $0 }, signature: "s"))))
        return b
    }

    @Test func refusingPlaybackAfterTheSignedExpiryPasses() {
        var b = rental(expiresAfter: 10)
        b.inspect(inspection("p1", licenseExpiration: epoch.addingTimeInterval(10), playable: false,
                             unplayableReason: "license expired"), at: 60)
        let verdict = evaluate(id, b, context)
        #expect(verdict.outcome == .passed, "\(verdict)")
        expectEvidence(verdict, at: 60, contains: "inspection of download p1 refused playback (license expired); the license server signed")
    }

    @Test func playableAfterTheSignedExpiryFailsWhateverTheAppClaims() {
        var b = rental(expiresAfter: 10)
        // The app claims a later expiry and plays: both are caught.
        b.inspect(inspection("p1", licenseExpiration: epoch.addingTimeInterval(3600), playable: true), at: 60)
        let verdict = evaluate(id, b, context)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 60, contains: "says playable although the license server signed its license to expire at")
        expectEvidence(verdict, at: 60, contains: "the app says its license expires at")
    }

    @Test func theAppSayingExpiredIsNotEvidence() {
        // Still valid at the server; the app's word alone does not make it expired.
        var b = rental(expiresAfter: 100)
        b.inspect(inspection("p1", licenseExpiration: epoch.addingTimeInterval(100), playable: true,
                             unplayableReason: "license expired"), at: 60)
        #expect(evaluate(id, b, context).outcome == .notApplicable)
    }

    @Test func validPurchasedUnknownOrWithinToleranceIsNotApplicable() {
        var valid = rental(expiresAfter: 100)
        valid.inspect(inspection("p1", licenseExpiration: epoch.addingTimeInterval(100)), at: 60)
        #expect(evaluate(id, valid, context).outcome == .notApplicable)
        var purchase = rental(expiresAfter: nil)
        purchase.inspect(inspection("p1"), at: 60)
        #expect(evaluate(id, purchase, context).outcome == .notApplicable)
        var tolerance = rental(expiresAfter: 59)  // 59.5 s would be within the 1 s tolerance of 60 s
        tolerance.inspect(inspection("p1", licenseExpiration: epoch.addingTimeInterval(59)), at: 59.8)
        #expect(evaluate(id, tolerance, context).outcome == .notApplicable)
        var noClock = rental(expiresAfter: 10)
        noClock.inspect(inspection("p1", playable: true), at: 60)
        #expect(evaluate(id, noClock).outcome == .notApplicable)
    }
}
