extension Property {
    /// `cancel-delete-clean`: a cancelled or deleted download leaves nothing behind,
    /// judged from the disk as the harness reads it.
    ///
    /// After each successful `.harness(.userAction(action: "cancel" | "delete", …))`, at
    /// the inspection that follows, the harness looks at the app's storage itself
    /// (`.harness(.leftAfterRemoval)`): no file may hold a resource of the download's
    /// video, whole or in part (told by content, whatever the file is called), and no
    /// file may be left under the package directory the app had named for it. The app's
    /// answer to that inspection is a claim checked beside it: it must no longer know the
    /// download, count no file and hold no license. An action with no inspection after
    /// it is noted, not judged.
    public static let cancelDeleteClean = Property(
        id: "cancel-delete-clean",
        description: "A canceled or deleted download leaves nothing behind: no record, no files, no license."
    ) { trace, _ in
        var findings = PropertyFindings("cancel-delete-clean")
        let actions = trace.userActions.filter { ["cancel", "delete"].contains($0.action) && $0.error == nil }
        for action in actions { judgeClean(action, trace, &findings) }
        return findings.verdict(
            passed: "\(Wording.count(findings.checked, "cancel or delete")) left no file, record or license behind.",
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
        var left: [String] = []
        if let disk = trace.leftovers.last(where: { $0.download == action.download && $0.t >= found.t }) {
            if !disk.stored.isEmpty { left.append("the disk still holds \(disk.stored.count) of its resources whole "
                + "(\(disk.stored.prefix(3).joined(separator: ", ")))") }
            if !disk.partial.isEmpty { left.append("the disk still holds part of \(disk.partial.count) of its resources") }
            if !disk.packageFiles.isEmpty { left.append("\(Wording.count(disk.packageFiles.count, "file")) left in its "
                + "package directory (\(disk.packageFiles.prefix(3).joined(separator: ", ")))") }
        } else {
            left.append("the harness did not read the disk after it")
        }
        let inspection = found.inspection
        if inspection.known { left.append("the app still knows it (\(inspection.state.map { "\($0)" } ?? "no state"))") }
        if let files = inspection.files, files != 0 { left.append("the app counts \(Wording.count(files, "file"))") }
        if let expiration = inspection.licenseExpiration { left.append("the app holds a license (expiring \(expiration))") }
        if left.isEmpty {
            findings.support(found.t, "after the \(name): nothing of it on the disk; the app no longer knows it and "
                + "holds no license")
        } else {
            findings.violation(found.t, "after the \(name): " + left.joined(separator: "; "), broke: .leaveNothing)
        }
    }
}
