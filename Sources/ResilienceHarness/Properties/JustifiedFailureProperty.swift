import AppProtocol
import BenchCore

extension Property {
    /// `justified-failure`: a download ends `failed` only for a permanent cause the world
    /// showed (docs/obligations.md, "Justified failures"; the rule in numbers in
    /// docs/app-protocol.md, "Failures").
    ///
    /// Every `→ failed` of a requested download is judged once (`ObligationModel.failures`).
    /// The causes, all from the evidence (`FailureCause`): the launch after a force-quit
    /// or a reboot with the download in flight at the kill; a client error (4xx but 408
    /// and 429) the origin answered to a request for one of its resources (playlists,
    /// segments, keys, its license); a refusal by the license server for its asset; its
    /// rental expired (the expiry the server signed, on the run's wall clock); five rounds
    /// of server errors in a row for its resources, each begun after the previous round's
    /// answer, spread over at least 0.5 s, with no content served in between (Media3's
    /// `minRetryCount`); its catalog entry not offline-enabled. A reset, a refused connection, a cut body, a
    /// stall, a captive portal's page or a lone server error is none of these.
    ///
    /// A failure with no cause is reported once, by the property of the situation it
    /// failed in: at or after an outage that concerned the download,
    /// `auto-suspend-on-disconnect`; after the app said its license failed (and none
    /// reached it since), `license-before-background`; otherwise this property. This one
    /// lists the others, and the justified ones with their cause. Not applicable when no
    /// download failed.
    public static let justifiedFailure = Property(
        id: "justified-failure",
        description: "A download ends failed only for a permanent cause the world showed: a client error for its "
            + "resources, a refused or expired license, a force-quit or reboot, five rounds of server errors, an "
            + "entry not offline-enabled; never for a reset, a cut body, a stall, a portal or one server error."
    ) { trace, context in
        var findings = PropertyFindings("justified-failure")
        let failures = ObligationModel(trace: trace, context: context).failures
        for failure in failures {
            findings.checkedOne()
            judge(failure, trace, &findings)
        }
        let justified = failures.filter(\.isJustified).count
        return findings.verdict(
            passed: "\(Wording.count(failures.count, "failure")) judged: \(justified) for a permanent cause the world "
                + "showed" + (failures.count > justified ? ", the others judged by the property of their situation" : "")
                + ".",
            failed: "\(Wording.count(findings.violations.count, "download")) failed with no permanent cause; first: "
                + "\(Wording.first(findings)).",
            notApplicable: "No download failed.")
    }

    private static func judge(_ failure: FailureJudgement, _ trace: ScenarioTrace, _ findings: inout PropertyFindings) {
        let change = failure.change
        let token = failure.download.token
        let failed = "download \(token) \(change.from) → failed at \(Wording.time(change.t))"
        if let cause = failure.cause {
            let judged = failure.judgedBy == "justified-failure" ? "" : " (its timing judged by \(failure.judgedBy))"
            findings.support(change.t, "\(failed): \(cause.words)\(judged)")
            return
        }
        guard failure.judgedBy == "justified-failure" else {
            findings.support(change.t, "\(failed) with no permanent cause: judged by \(failure.judgedBy), the property "
                + "of the situation it failed in")
            return
        }
        findings.violation(change.t, "\(failed) with no permanent cause the world showed: \(whatHappened(failure, trace))",
                           broke: .failOnlyForCause)
    }

    /// What the world did show before an unjustified failure, for its evidence: the
    /// download's last origin answers, and whether its interfaces were up.
    private static func whatHappened(_ failure: FailureJudgement, _ trace: ScenarioTrace) -> String {
        let download = failure.download
        let before = trace.resourceRequests(of: download).filter { $0.responseBegan <= failure.change.t }
        let last = before.suffix(3).map { request in
            let cut = request.record.completed ? "" : ", cut after \(request.record.bytesSent) bytes"
            let fault = request.record.faultRuleID.map { ", fault rule \($0)" } ?? ""
            return "\(request.record.status) to \(request.record.method) \(request.path)\(cut)\(fault)"
        }
        let up = trace.interfaces.up(at: failure.change.t).intersection(download.allowedInterfaces)
        let network = up.isEmpty ? "no interface it may use was up"
            : "\(up.map(\.rawValue).sorted().joined(separator: " and ")) up"
        let errors = trace.serverErrorRounds(in: before).count
        let rounds = errors > 0 ? "; \(Wording.count(errors, "round")) of server errors in a row, not "
            + "\(FailureRules.serverErrorRounds)" : ""
        return (last.isEmpty ? "the origin answered nothing for it" : "the origin's last answers: " + last.joined(separator: "; "))
            + "; \(network)\(rounds)"
    }
}
