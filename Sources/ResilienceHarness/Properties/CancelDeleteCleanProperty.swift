extension Property {
    /// `cancel-delete-clean`.
    ///
    /// After each successful `.harness(.userAction(action: "cancel" | "delete", download:,
    /// error: nil))`, the last `.agent(.inspected)` of that download made after it shows
    /// `known == false`, `files == 0` and `licenseExpiration == nil`. An action with no
    /// inspection after it is noted, not judged.
    public static let cancelDeleteClean = Property(
        id: "cancel-delete-clean",
        description: "A canceled or deleted download leaves nothing behind: no record, no files, no license."
    ) { trace, _ in
        var findings = PropertyFindings("cancel-delete-clean")
        let actions = trace.userActions.filter { ["cancel", "delete"].contains($0.action) && $0.error == nil }
        for action in actions { judgeClean(action, trace, &findings) }
        return findings.verdict(
            passed: "\(Wording.count(findings.checked, "cancel or delete")) left no record, file or license behind.",
            failed: "\(Wording.count(findings.violations.count, "cancel or delete")) left something behind; first: "
                + "\(Wording.first(findings)).",
            notApplicable: "No successful cancel or delete was followed by an inspection.")
    }

    private static func judgeClean(_ action: TracedUserAction, _ trace: ScenarioTrace, _ findings: inout PropertyFindings) {
        let name = "\(action.action) of download \(action.download) at \(Wording.time(action.t))"
        guard let found = trace.inspections(of: action.download).last(where: { $0.t > action.t }) else {
            findings.support(action.t, "\(name) was not inspected afterwards; not judged")
            return
        }
        findings.checkedOne()
        let inspection = found.inspection
        var left: [String] = []
        if inspection.known { left.append("the engine still knows it (\(inspection.state.map { "\($0)" } ?? "no state"))") }
        if let files = inspection.files, files != 0 { left.append("\(Wording.count(files, "file")) remain") }
        if let expiration = inspection.licenseExpiration { left.append("a license (expiring \(expiration)) remains") }
        if left.isEmpty {
            findings.support(found.t, "after the \(name): unknown, 0 files, no license")
        } else {
            findings.violation(found.t, "inspection after the \(name): " + left.joined(separator: "; "))
        }
    }
}
