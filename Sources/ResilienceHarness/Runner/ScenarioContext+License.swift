import BenchCore
import FixtureOrigin
import Foundation

extension ScenarioContext {
    /// Records which license `token`, a download of `document`, needs (nothing for a
    /// video without an `skd://` key). Called by `request` right after `downloadRequested`.
    func recordLicenseKey(of document: VideoDocument, for token: String) {
        guard let key = CatalogLicenseKey(document) else { return }
        collector.harness(.licenseKeyOf(
            download: token, assetID: key.assetID, keyID: key.keyID, licenseURL: key.licenseURL))
    }

    /// Makes the license endpoint answer `delay` late from now on (the origin's
    /// `addedTimeToFirstByte` fault on `/license`, after any rule of the profile's origin
    /// faults; certificate and renewal stay quick),
    /// noted in the trace. A slow license server exposes an app that fetches encrypted
    /// segments, or goes to the background, before its license arrived: the license
    /// server issues the license when the request arrives, and the response carrying
    /// it ends `delay` later in the origin's log.
    public func slowLicenseServer(by delay: Duration) throws {
        let path = network.catalog.configuration.licensePath
        let rule = FaultRule(id: "slow-license", path: path, fault: .addedTimeToFirstByte(delay))
        // Beside the rules the profile's origin faults may have in place: added last, so
        // that an open window of the profile (a captive portal) still answers first.
        try network.origin.updateFaultRules { (rules: inout FaultRuleSet) throws(FaultRuleSetError) in
            rules.remove(id: rule.id)
            try rules.add(rule)
        }
        collector.harness(.note("origin fault rule: \(path) answers \(delay) late (added time to first byte)"))
    }
}
