import Foundation

extension ScenarioResult {
    /// The line `bench` prints when a scenario ends: "PASS  8 properties held, 3 not
    /// applicable (41.2 s); exercised: …", "FAIL  crash-recovery, integrity: …" (every
    /// failed property, the one named like the scenario as "its own property", then any
    /// unmet precondition), "FAIL  precondition not met: …" or "UNSUPPORTED  …"; each
    /// download named as the timeline names it (`namingDownloads`).
    public var outcomeLine: String {
        namingDownloads.unnamedOutcomeLine
    }

    /// `outcomeLine` of the text as it is (tokens whole).
    private var unnamedOutcomeLine: String {
        let seconds = Double(endNanoseconds - startNanoseconds) / 1e9
        let time = String(format: "%.1f s", seconds)
        if let text = unsupportedText {
            return "UNSUPPORTED  \(text): the app's hello does not declare it; not played, not passed (\(time))"
        }
        if let error = error {
            return "FAIL  \(error) (\(time))"
        }
        // Every failed property is named, and unmet preconditions beside them, never instead.
        let unmet = preconditions.filter { !$0.met }
        let failed = verdicts.filter(\.failed)
        if let first = failed.first {
            let also = unmet.first.map { "; precondition not met: \($0.name): \($0.detail)" } ?? ""
            // A property named like its scenario is said once ("auto-suspend-on-disconnect:
            // FAIL  its own property: …").
            let names = failed.map { $0.property == name ? "its own property" : $0.property }
            return "FAIL  \(names.joined(separator: ", ")): \(first.summary)\(also) (\(time))"
        }
        if let first = unmet.first {
            return "FAIL  precondition not met: \(first.name): \(first.detail) (\(time))"
        }
        let held = verdicts.filter { $0.outcome == .passed }.count
        let skipped = verdicts.count - held
        return "PASS  \(held) properties held, \(skipped) not applicable (\(time)); exercised: "
            + exercisedProperties.joined(separator: ", ")
    }
}
