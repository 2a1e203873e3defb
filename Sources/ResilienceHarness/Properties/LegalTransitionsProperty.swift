import AppProtocol

extension Property {
    /// `legal-transitions`.
    ///
    /// Every `.agent(.stateChanged(from, to))` is an edge of `LegalTransitions.isLegal`,
    /// and its `from` is the token's previous `to` (`notDownloaded` before the first).
    /// Across a relaunch (an `.agent(.launched)` between the two changes) the engine
    /// restarts from what its index kept, which may be one step past what it reported
    /// before it died (persist comes before the report); so the first change after a
    /// launch may also start from any state one legal edge past the previous `to`, and,
    /// for a token with no earlier change (restored from an older index), from any state.
    public static let legalTransitions = Property(
        id: "legal-transitions",
        description: "Every state change is an edge of the engine's transition table and starts from the state "
            + "the download was last reported in."
    ) { trace, _ in
        var rule = LegalTransitionsRule(trace: trace)
        return rule.judge()
    }
}

/// The engine's transition table (`DownloadStateMachine`'s documentation), written out
/// independently as edges of reported states, so that a change to the machine that
/// breaks the documented table shows up here.
public enum LegalTransitions {
    /// Whether `from → to` is an edge a `stateChanged` may report. A change to the same
    /// state is never reported, so never legal.
    public static func isLegal(from: AppState, to: AppState) -> Bool {
        guard from != to else { return false }
        switch from {
        case .notDownloaded:
            return to == .requested || to == .licensePreloaded
        case .licensePreloaded:
            // downloadRequested; deleteRequested or expired †
            return to == .requested || to == .notDownloaded
        case .requested:
            // slotGranted settles; permanentFailure †; cancelRequested †; expired †
            return to == .downloading || to.suspensionCause != nil
                || [.failed, .canceling, .notDownloaded].contains(to)
        case .downloading, .suspended:
            // settle either way, stall, completed (from downloading only), failure, cancel, expired †;
            // a restore after a crash enters the settled state from the recorded one.
            if to == .downloaded { return from == .downloading }
            return to == .downloading || to.suspensionCause != nil
                || [.failed, .canceling, .notDownloaded].contains(to)
        case .downloaded, .failed:
            // deleteRequested †, expired †
            return to == .notDownloaded
        case .canceling:
            // cancelFinished
            return to == .notDownloaded
        }
    }
}

private struct LegalTransitionsRule {
    let trace: ScenarioTrace
    var findings = PropertyFindings("legal-transitions")

    mutating func judge() -> Verdict {
        var total = 0
        for token in trace.stateChanges.keys.sorted() {
            let changes = trace.stateChanges[token] ?? []
            total += changes.count
            judge(token, changes)
        }
        return findings.verdict(
            passed: "All \(Wording.count(total, "state change")) of \(Wording.count(trace.stateChanges.count, "download")) "
                + "were legal edges from the previous state.",
            failed: "\(Wording.count(findings.violations.count, "illegal state change")) among \(total); first: "
                + "\(Wording.first(findings)).",
            notApplicable: "No state change was reported.")
    }

    private mutating func judge(_ token: String, _ changes: [TracedStateChange]) {
        var previous: TracedStateChange?
        let violationsBefore = findings.violations.count
        for change in changes {
            findings.checkedOne()
            if !LegalTransitions.isLegal(from: change.from, to: change.to) {
                findings.violation(change.t, "download \(token) \(change.from) → \(change.to) is not an edge of "
                    + "the transition table", broke: .reportTruly)
            }
            if let problem = chainProblem(change, after: previous) {
                findings.violation(change.t, "download \(token) \(change.from) → \(change.to): \(problem)",
                    broke: .reportTruly)
            }
            previous = change
        }
        if let last = changes.last, findings.violations.count == violationsBefore {
            findings.support(last.t, "download \(token): \(Wording.count(changes.count, "legal change")), last → \(last.to)")
        }
    }

    /// Why `change` does not follow `previous`, or nil when it does.
    private func chainProblem(_ change: TracedStateChange, after previous: TracedStateChange?) -> String? {
        let relaunched = trace.agentLaunches.contains { launch in
            launch.t <= change.t && (previous.map { launch.t >= $0.t } ?? true)
        }
        guard let previous else {
            if change.from == .notDownloaded || relaunched { return nil }
            return "the first change of a download must start from notDownloaded"
        }
        if change.from == previous.to { return nil }
        if relaunched, LegalTransitions.isLegal(from: previous.to, to: change.from) { return nil }
        let relaunch = relaunched ? " or one step past it after the relaunch" : ""
        return "it was last reported \(previous.to) at \(Wording.time(previous.t)), so the change must start "
            + "there\(relaunch)"
    }
}
