import Foundation
import AppProtocol
import ResilienceHarness
import Testing

@Suite struct PropertyExpiredRentalTests {
    let id = "expired-rental-refuses-playback"
    let epoch = Date(timeIntervalSince1970: 1_000_000)

    @Test func theAgentRefusingAnExpiredLicensePasses() {
        var b = TraceBuilder()
        b.inspect(inspection("d1", playable: false, unplayableReason: "license expired"), at: 4)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed)
        expectEvidence(verdict, at: 4, contains: "inspection of download d1 refused playback (license expired)")
    }

    @Test func playableWithAnExpirationInThePastFails() {
        // The license expired 10 s after the epoch; the inspection is at 60 s.
        var b = TraceBuilder()
        b.inspect(inspection("d1", licenseExpiration: epoch.addingTimeInterval(10), playable: true), at: 60)
        let verdict = evaluate(id, b, PropertyContext(epochWallClock: epoch))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 60, contains: "inspection of download d1 says playable although its license expired at")
    }

    @Test func playableWhileTheAgentSaysExpiredFails() {
        var b = TraceBuilder()
        b.inspect(inspection("d1", playable: true, unplayableReason: "license expired"), at: 5)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 5, contains: "says playable although the agent reports the license expired")
    }

    @Test func validOrUnknownExpirationsAreNotApplicable() {
        var b = TraceBuilder()
        // Expires 100 s after the epoch, inspected at 60 s: still valid.
        b.inspect(inspection("d1", licenseExpiration: epoch.addingTimeInterval(100)), at: 60)
        // Expired by the wall clock, but within the 1 s tolerance.
        b.inspect(inspection("d2", licenseExpiration: epoch.addingTimeInterval(59.5)), at: 60)
        #expect(evaluate(id, b, PropertyContext(epochWallClock: epoch)).outcome == .notApplicable)
        // Without the epoch's wall clock an expiration cannot be judged.
        var late = TraceBuilder()
        late.inspect(inspection("d1", licenseExpiration: epoch, playable: true), at: 60)
        #expect(evaluate(id, late).outcome == .notApplicable)
    }
}
