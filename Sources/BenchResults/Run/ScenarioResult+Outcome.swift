import Foundation

extension ScenarioResult {
    /// The line `bench` prints when a scenario ends: "PASS  8 properties held, 3 not
    /// applicable (41.2 s); exercised: …", "FAIL  crash-recovery, integrity: …" (every
    /// failed property, then any unmet precondition), "FAIL  precondition not met: …"
    /// or "UNSUPPORTED  …".
    public var outcomeLine: String {
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
            return "FAIL  \(failed.map(\.property).joined(separator: ", ")): \(first.summary)\(also) (\(time))"
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
