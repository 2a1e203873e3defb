import BenchCore
import AppProtocol

extension Property {
    /// `auto-suspend-on-disconnect` (DESIGN.md §5, property 1).
    ///
    /// For each download and each of its outages (no interface it may use is up; any
    /// down mode) that began while it was `downloading` or network-suspended:
    /// - a `downloading` one reaches `suspended(network)` (or `suspended(cellularNotAllowed)`)
    ///   within `suspendBound` of the start; excused when it finished first, the agent
    ///   was killed within the bound, or the outage (as observed) was shorter than the bound;
    /// - within `resumeBound` of the outage's end it is `downloading` (or `downloaded`);
    ///   excused when then suspended for the user, storage or the foreground, canceled,
    ///   failed by the launch after a force-quit or reboot (crash-recovery judges that),
    ///   killed, out again (next outage) or the trace ended first;
    /// - it never enters `failed` during such an outage, or within `resumeBound` after it
    ///   ended, with no permanent cause the world showed (`ObligationModel.failures`: a
    ///   failure is judged once, and one in that window with no cause is this
    ///   property's; later, `justified-failure`'s); a failure the launch after a
    ///   force-quit or a reboot requires is crash-recovery's;
    /// - when an outage ended, its final state is `downloaded`, while it still owes
    ///   `complete` (not cancelled, deleted, paused and never resumed, or lost to a
    ///   force-quit), or `failed` (judged as above);
    /// - no download goes `→ downloading` while the app knows no interface is up: after
    ///   its reply to a `setPath` with none, before the harness sends it one with an
    ///   interface (or kills it); ordered by the app's own output stream, so a change it
    ///   wrote before it read the path is never counted. A download the user resumes then
    ///   owes `suspended(network)` (`ObligationModel`: `waitForNetwork`). The same claim
    ///   of a download not allowed cellular while the app knows only cellular is up is
    ///   `cellular-policy`'s.
    public static let autoSuspendOnDisconnect = Property(
        id: "auto-suspend-on-disconnect",
        description: "Downloads suspend for the network within a bound of losing their last allowed interface, "
            + "never fail, and resume and complete once it returns."
    ) { trace, context in
        var rule = AutoSuspendRule(trace: trace, context: context, model: ObligationModel(trace: trace, context: context))
        return rule.judge()
    }
}

/// The rule of `auto-suspend-on-disconnect`, one check per function.
private struct AutoSuspendRule {
    let trace: ScenarioTrace
    let context: PropertyContext
    let model: ObligationModel
    var findings = PropertyFindings("auto-suspend-on-disconnect")

    mutating func judge() -> Verdict {
        let responses = trace.outageResponses.filter(\.isInvolved)
        for response in responses {
            findings.checkedOne()
            checkSuspension(response)
            checkResumption(response)
        }
        for token in Set(responses.map(\.download.token)).sorted() {
            let own = responses.filter { $0.download.token == token }
            guard let first = own.first else { continue }
            checkNoFailure(first.download, since: first.outage)
            if own.contains(where: { $0.outage.end != nil }) { checkCompletion(first.download) }
        }
        checkNoDownloadingWhileToldOffline()
        let downloads = Set(responses.map(\.download.token)).count
        let worstSuspend = responses.compactMap(\.suspendLatency).max()
        let worstResume = responses.compactMap(\.resumeLatency).max()
        // Only the figures that exist: no download suspended (or resumed) has no worst latency.
        let latencies = [
            worstSuspend.map { "worst suspend \(Wording.seconds($0)) (bound \(Wording.bound(context.suspendBound)))" },
            worstResume.map { "worst resume \(Wording.seconds($0)) (bound \(Wording.bound(context.resumeBound)))" },
        ].compactMap { $0 }
        let figures = "\(Wording.count(responses.count, "outage response")) of \(Wording.count(downloads, "download"))"
            + (latencies.isEmpty ? "" : "; " + latencies.joined(separator: ", "))
        return findings.verdict(
            passed: "Every download suspended, held and resumed as required: \(figures).",
            failed: "\(Wording.count(findings.violations.count, "violation")) (\(figures)); first: \(Wording.first(findings)).",
            notApplicable: "No download was transferring when it lost its last allowed interface.")
    }

    private mutating func checkSuspension(_ response: OutageResponse) {
        guard response.wasDownloading else { return }
        let token = response.download.token
        let outage = response.outage
        let bound = context.suspendBound.nanoseconds
        if let suspension = response.suspension {
            let latency = suspension.t - outage.start
            let text = "download \(token) \(suspension.from) → \(suspension.to) \(Wording.seconds(latency)) after "
                + "\(outage.startCause) at \(Wording.time(outage.start))"
            if latency <= bound {
                findings.support(suspension.t, text)
            } else {
                findings.violation(suspension.t, text + ", beyond the \(Wording.bound(context.suspendBound)) bound",
                    broke: .waitForNetwork)
            }
            return
        }
        if let excuse = suspensionExcuse(response) {
            findings.support(outage.start, "download \(token): \(outage.startCause); \(excuse)")
            return
        }
        let state = response.download.state(atOrBefore: outage.start.plus(bound)).map { "\($0)" } ?? "unknown"
        findings.violation(
            outage.start,
            "\(outage.startCause) left download \(token) without an allowed interface; it did not reach "
                + "suspended(network) within \(Wording.bound(context.suspendBound)) (state then: \(state))",
            broke: .waitForNetwork)
    }

    /// Why a download that was transferring need not have suspended, if it need not.
    private func suspensionExcuse(_ response: OutageResponse) -> String? {
        let outage = response.outage
        let deadline = outage.start.plus(context.suspendBound.nanoseconds)
        let next = response.download.firstChange(from: outage.start) { _ in true }
        if let next, next.to == .downloaded, next.t <= deadline {
            return "it finished (→ downloaded) \(Wording.seconds(next.t - outage.start)) later, before it had to suspend"
        }
        if let kill = trace.kills(from: outage.start, through: deadline).first {
            return "the agent was killed at \(Wording.time(kill.t)), within the suspend bound"
        }
        let length = outage.length(traceEnd: trace.end)
        if length < context.suspendBound.nanoseconds {
            return "the outage lasted \(Wording.seconds(length)), shorter than the \(Wording.bound(context.suspendBound)) bound"
        }
        return nil
    }

    private mutating func checkResumption(_ response: OutageResponse) {
        guard let end = response.outage.end else { return }
        let token = response.download.token
        let cause = response.outage.endCause ?? "an allowed interface up"
        if let resumption = response.resumption, let latency = response.resumeLatency,
            latency <= context.resumeBound.nanoseconds
        {
            let what = resumption.t <= end
                ? "was still \(resumption.to) when \(cause)"
                : "\(resumption.from) → \(resumption.to) \(Wording.seconds(latency)) after \(cause)"
            findings.support(max(resumption.t, end), "download \(token) \(what)")
            return
        }
        if let excuse = resumptionExcuse(response, end: end) {
            findings.support(end, "download \(token): \(cause); \(excuse)")
            return
        }
        let late = response.resumeLatency.map { " (it did \(Wording.seconds($0)) later)" } ?? ""
        findings.violation(
            end,
            "\(cause) at \(Wording.time(end)), but download \(token) was not downloading within "
                + "\(Wording.bound(context.resumeBound))\(late)", broke: .waitForNetwork)
    }

    /// Why a download need not have resumed within the bound, if it need not.
    private func resumptionExcuse(_ response: OutageResponse, end: UInt64) -> String? {
        let deadline = end.plus(context.resumeBound.nanoseconds)
        if let next = response.nextOutageStart, next <= deadline {
            return "it lost its interfaces again at \(Wording.time(next)), before the resume bound"
        }
        if let kill = trace.kills(from: end, through: deadline).first {
            return "the agent was killed at \(Wording.time(kill.t)), within the resume bound"
        }
        if trace.end < deadline, response.resumption == nil {
            return "the trace ended \(Wording.seconds(trace.end - end)) later, before the resume bound"
        }
        let state = response.download.state(atOrBefore: deadline)
        let otherReasons: [AppState] = [.suspended(.user), .suspended(.storage), .suspended(.awaitingForeground)]
        if let state, otherReasons.contains(state) || state == .canceling || state == .notDownloaded {
            return "it was \(state) then, which the network does not decide"
        }
        if state == .failed, let failure = response.download.changes.last(where: { $0.to == .failed && $0.t <= deadline }),
            let lost = trace.launchRequiringFailure(of: response.download, failure)
        {
            return "it had failed at \(Wording.time(failure.t)), right after the launch after \(lost.after) at "
                + "\(Wording.time(lost.t)), which must fail it (crash-recovery judges it), not the network"
        }
        return faultExcuse(response, end: end, deadline: deadline)
    }

    /// The origin would not serve the video: every request the app made for it after the
    /// outage, in a fault window of the profile, got the fault (a captive portal's page,
    /// an error status), so the bound runs from the window's end.
    private func faultExcuse(_ response: OutageResponse, end: UInt64, deadline: UInt64) -> String? {
        let download = response.download
        guard let fault = trace.faultKeeping(video: download.video, from: end, before: deadline) else { return nil }
        let closed = fault.span.end ?? trace.end
        let bound = closed.plus(context.resumeBound.nanoseconds)
        let resumed = response.resumption.map { $0.t <= bound } ?? (trace.end < bound)
        guard resumed else { return nil }
        let after = response.resumption.map { "; it resumed \(Wording.seconds($0.t > closed ? $0.t - closed : 0)) after" }
            ?? "; the trace ended before the bound after"
        return "the origin answered every request for \(download.video) with its fault (\(fault.what)) from "
            + "\(Wording.time(max(end, fault.span.start))) to \(Wording.time(closed)): nothing could be fetched\(after) "
            + "the window closed (bound \(Wording.bound(context.resumeBound)))"
    }

    /// No download goes `→ downloading` while the app knows that no interface is up
    /// (`ScenarioTrace.toldOffline`): a transfer with no interface is a claim the network
    /// denies, whatever the app's own timers make of it. (While only cellular is up, the
    /// same claim of a download not allowed cellular is `cellular-policy`'s.)
    private mutating func checkNoDownloadingWhileToldOffline() {
        for window in trace.toldOffline {
            for download in trace.downloads {
                for change in download.changes where change.to == .downloading && change.t > window.start && window.contains(change.t) {
                    findings.violation(change.t, "download \(download.token) \(change.from) → downloading at "
                        + "\(Wording.time(change.t)), while the app knew no interface was up: \(window.startCause) at "
                        + "\(Wording.time(window.start)), and nothing since gave it one"
                        + (window.end.map { " until \(Wording.time($0))" } ?? ""), broke: .waitForNetwork)
                }
            }
        }
    }

    private mutating func checkNoFailure(_ download: TracedDownload, since outage: TraceInterval) {
        for failure in model.failures where failure.download.token == download.token && failure.change.t >= outage.start {
            // Long after the outages that concerned it, a failure is another situation's.
            if failure.cause == nil, failure.judgedBy != "auto-suspend-on-disconnect" { continue }
            let change = failure.change
            switch (failure.judgedBy, failure.cause) {
            case (_, .lostAtRelaunch(let lost)?):
                findings.support(change.t, "download \(download.token) → failed after the launch after \(lost.after) at "
                    + "\(Wording.time(lost.t)) (crash-recovery judges it)")
            case (_, let cause?):
                findings.support(change.t, "download \(download.token) \(change.from) → failed at \(Wording.time(change.t)), "
                    + "after \(outage.startCause) at \(Wording.time(outage.start)), for a permanent cause: \(cause.words) "
                    + "(not the outage)")
            case (_, nil):
                findings.violation(
                    change.t,
                    "download \(download.token) \(change.from) → failed, at or after \(outage.startCause) at "
                        + "\(Wording.time(outage.start)); an outage must never fail a download, and the world showed no "
                        + "permanent cause", broke: .failOnlyForCause)
            }
        }
    }

    private mutating func checkCompletion(_ download: TracedDownload) {
        let final = download.changes.last
        if final?.to == .downloaded || final?.to == .failed { return }
        let owed = model.owesCompletion(download)
        guard owed.owed else {
            if model.finalIntent(of: download)?.intent != .removed {
                findings.support(final?.t ?? download.requestedAt, "download \(download.token) after its outage: \(owed.why)")
            }
            return
        }
        findings.violation(
            final?.t ?? download.requestedAt,
            "download \(download.token) ended \(final.map { "\($0.to)" } ?? "without a state"), not downloaded, "
                + "after its outage ended", broke: .complete)
    }
}
