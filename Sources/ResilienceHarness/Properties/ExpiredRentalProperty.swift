import Foundation

extension Property {
    /// `expired-rental-refuses-playback`.
    ///
    /// Whether a download's license has expired is the license server's word, not the
    /// app's: an inspection counts as one of an expired license when every license the
    /// server issued for the download's asset (its `licenseKeyOf`) before the inspection
    /// was a rental whose signed expiry plus `context.expiryTolerance` is earlier than
    /// the inspection's time on the wall clock (`context.epochWallClock + t`). Such an
    /// inspection must say `playable == false`: `playable == true` fails. The app's own
    /// `licenseExpiration` is a claim: one that differs from the server's expiry by more
    /// than the tolerance fails too. Not applicable when no inspection came after a
    /// license expired (or the run's wall clock is unknown).
    public static let expiredRentalRefusesPlayback = Property(
        id: "expired-rental-refuses-playback",
        description: "A download whose license has expired refuses offline playback."
    ) { trace, context in
        var findings = PropertyFindings("expired-rental-refuses-playback")
        for inspection in trace.inspections {
            if let mismatch = claimedExpiryMismatch(inspection, trace, context) {
                findings.checkedOne()
                findings.violation(inspection.t, "inspection of download \(inspection.inspection.download): \(mismatch)",
                    broke: .keepPackage)
            }
            guard let expired = expiry(of: inspection, trace, context) else { continue }
            findings.checkedOne()
            let name = "inspection of download \(inspection.inspection.download)"
            if inspection.inspection.playable {
                findings.violation(inspection.t, "\(name) says playable although \(expired)", broke: .keepPackage)
            } else {
                let reason = inspection.inspection.unplayableReason ?? "no reason given"
                findings.support(inspection.t, "\(name) refused playback (\(reason)); \(expired)")
            }
        }
        return findings.verdict(
            passed: "\(Wording.count(findings.checked, "inspection")) of expired licenses refused playback.",
            failed: "\(Wording.count(findings.violations.count, "inspection")) of expired licenses allowed playback; "
                + "first: \(Wording.first(findings)).",
            notApplicable: "No inspection came after a license the server issued had expired.")
    }

    /// Why `inspection` is one of an expired license, from the license server, or nil
    /// when it is not (a purchase, a rental still valid, or an unknown asset or clock).
    private static func expiry(of inspection: TracedInspection, _ trace: ScenarioTrace, _ context: PropertyContext)
        -> String?
    {
        guard let epoch = context.epochWallClock,
            let asset = trace.download(inspection.inspection.download)?.licenseKey?.assetID
        else { return nil }
        let issued = trace.licenseServer.issued(forAsset: asset).filter { $0.t <= inspection.t }
        guard !issued.isEmpty else { return nil }
        let expiries = issued.compactMap(\.expiresAt)
        guard expiries.count == issued.count, let latest = expiries.max() else { return nil }  // a purchase never expires
        let now = epoch.addingTimeInterval(Double(inspection.t) / 1e9)
        let expiration = Date(timeIntervalSince1970: TimeInterval(latest))
        guard expiration.addingTimeInterval(context.expiryTolerance.seconds) < now else { return nil }
        return "the license server signed its license to expire at \(expiration), before the inspection (about \(now))"
    }

    /// A `licenseExpiration` the app reports that the server's latest issued expiry
    /// for the asset contradicts, in words; nil when they agree or cannot be compared.
    static func claimedExpiryMismatch(_ inspection: TracedInspection, _ trace: ScenarioTrace, _ context: PropertyContext)
        -> String?
    {
        guard let claimed = inspection.inspection.licenseExpiration,
            let asset = trace.download(inspection.inspection.download)?.licenseKey?.assetID,
            let issued = trace.licenseServer.issued(forAsset: asset).last(where: { $0.t <= inspection.t }),
            let signed = issued.expiresAt
        else { return nil }
        let server = Date(timeIntervalSince1970: TimeInterval(signed))
        guard abs(claimed.timeIntervalSince(server)) > context.expiryTolerance.seconds else { return nil }
        return "the app says its license expires at \(claimed), the license server signed \(server)"
    }
}
