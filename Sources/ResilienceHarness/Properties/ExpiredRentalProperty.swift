import Foundation

extension Property {
    /// `expired-rental-refuses-playback`.
    ///
    /// The trace has no wall clock of its own, so an inspection counts as one of an
    /// expired license when the agent says so (`unplayableReason == "license expired"`)
    /// or, when `context.epochWallClock` is known, when its `licenseExpiration` plus
    /// `context.expiryTolerance` is earlier than `epochWallClock + t` (the entry's
    /// trace time on the wall clock). Such an inspection must say `playable == false`:
    /// `playable == true` fails. Not applicable when no inspection saw an expired license.
    public static let expiredRentalRefusesPlayback = Property(
        id: "expired-rental-refuses-playback",
        description: "A download whose license has expired refuses offline playback."
    ) { trace, context in
        var findings = PropertyFindings("expired-rental-refuses-playback")
        for inspection in trace.inspections {
            guard let expired = expiry(of: inspection, context) else { continue }
            findings.checkedOne()
            let name = "inspection of download \(inspection.inspection.download)"
            if inspection.inspection.playable {
                findings.violation(inspection.t, "\(name) says playable although \(expired)")
            } else {
                let reason = inspection.inspection.unplayableReason ?? "no reason given"
                findings.support(inspection.t, "\(name) refused playback (\(reason)); \(expired)")
            }
        }
        return findings.verdict(
            passed: "\(Wording.count(findings.checked, "inspection")) of expired licenses refused playback.",
            failed: "\(Wording.count(findings.violations.count, "inspection")) of expired licenses allowed playback; "
                + "first: \(Wording.first(findings)).",
            notApplicable: "No inspection saw an expired license.")
    }

    /// Why `inspection` is one of an expired license, or nil when it is not.
    private static func expiry(of inspection: TracedInspection, _ context: PropertyContext) -> String? {
        let found = inspection.inspection
        if found.unplayableReason == "license expired" {
            return "the agent reports the license expired"
        }
        guard let epoch = context.epochWallClock, let expiration = found.licenseExpiration else { return nil }
        let now = epoch.addingTimeInterval(Double(inspection.t) / 1e9)
        guard expiration.addingTimeInterval(context.expiryTolerance.seconds) < now else { return nil }
        return "its license expired at \(expiration), before the inspection (about \(now))"
    }
}
