import BenchCore
import AppProtocol

extension Property {
    /// `pause-holds`: a download the user paused stays paused, fetching nothing, until
    /// the user resumes it; then it goes on and completes.
    ///
    /// For each `pause` the app accepted (`.harness(.userAction)` with no error; the
    /// action is stamped when the user acted, before the app was told), of a download
    /// that was running (requested, downloading or suspended for another reason):
    /// - it changes `→ suspended(user)` within `pauseBound` (the pause took effect
    ///   then), and every change before that one goes to a running state: a change the
    ///   app was already making when the user acted (e.g. `suspended(network) →
    ///   downloading` on a path update that came just before) is listed, but a download
    ///   that completes, fails or is removed instead of pausing fails;
    /// - until the next accepted `resume` of it (or its cancel or delete, a kill relaunched
    ///   after a force-quit or a reboot, which must fail it, or the end of the trace: the
    ///   span of `ObligationModel` in which it owes `holdPause`; a kill and the relaunch
    ///   after a crash, memory pressure or a clean exit do not end it, a pause outlives
    ///   them) it does not leave `suspended(user)` (a change into `suspended(user)` again,
    ///   as a relaunched app may report it, stays), and the
    ///   app sends no request for a media segment of its video later than `pauseGrace`
    ///   after the pause took effect: judged by when the conditioner read the request
    ///   from the app (`sentBy`), not when it reached the origin, so a request sent
    ///   before the pause and held by a slow link or a blackhole is never counted (the
    ///   grace covers the app's own write racing its reply on a busy machine, and a
    ///   request the conditioner did not stamp); and nothing more of its video is
    ///   stored: between the harness's
    ///   first read of the app's storage in the pause (`.harness(.diskWhilePaused)`, a
    ///   second after the app answered it) and its last (just before the resume), no
    ///   file of the video becomes whole and no partial file grows (bytes in flight at
    ///   the reply have landed by the first read; a transfer that goes on writes after
    ///   it). When another unfinished download shares the video, requests and files
    ///   cannot be told apart and are not judged;
    /// - after that `resume` its first change leaves `suspended(user)` within
    ///   `resumeBound`, and it ends `downloaded` unless the user cancelled, deleted or paused
    ///   it again, or the agent was killed, after the resume (a kill's completion is
    ///   `crash-recovery`'s; a `→ failed` is judged once, by the property of its
    ///   situation: `ObligationModel.failures`; byte-exactness is `integrity`'s).
    /// Not applicable when no running download was paused.
    public static let pauseHolds = Property(
        id: "pause-holds",
        description: "A paused download fetches no segment until the user resumes it, then resumes and completes."
    ) { trace, context in
        var rule = PauseRule(trace: trace, context: context, model: ObligationModel(trace: trace, context: context))
        return rule.judge()
    }
}

private struct PauseRule {
    let trace: ScenarioTrace
    let context: PropertyContext
    let model: ObligationModel
    var findings = PropertyFindings("pause-holds")

    mutating func judge() -> Verdict {
        for pause in trace.userActions where pause.action == "pause" && pause.error == nil {
            guard let download = trace.download(pause.download) else { continue }
            judge(pause, of: download)
        }
        return findings.verdict(
            passed: "\(Wording.count(findings.checked, "paused download")) held still, across relaunches, until the "
                + "user resumed, cancelled or deleted them or the scenario ended, and went on when resumed.",
            failed: "\(Wording.count(findings.violations.count, "violation")); first: \(Wording.first(findings)).",
            notApplicable: "No running download was paused.")
    }

    private mutating func judge(_ pause: TracedUserAction, of download: TracedDownload) {
        let token = download.token
        let before = download.state(before: pause.t)
        guard let before, before.isRunning else {
            findings.support(pause.t, "pause of download \(token) while \(before.map { "\($0)" } ?? "unknown"): not running")
            return
        }
        findings.checkedOne()
        let bound = pause.t.plus(context.pauseBound.nanoseconds)
        let after = download.changes.filter { $0.t >= pause.t }
        let first = after.first { $0.to == .suspended(.user) }
        let meanwhile = after.prefix { $0.to != .suspended(.user) }
        guard let first, first.t <= bound, meanwhile.allSatisfy({ $0.to.isRunning }) else {
            let wrong = meanwhile.first { !$0.to.isRunning } ?? after.first
            let found = wrong.map { "\($0.from) → \($0.to) after \(Wording.seconds($0.t - pause.t))" } ?? "no state change"
            findings.violation(wrong?.t ?? pause.t, "download \(token) was paused at \(Wording.time(pause.t)) while "
                + "\(before); it must be suspended(user) within \(Wording.bound(context.pauseBound)), found \(found)",
                broke: .holdPause)
            return
        }
        for change in meanwhile {
            findings.support(change.t, "download \(token) \(change.from) → \(change.to) "
                + "\(Wording.seconds(change.t - pause.t)) after the pause at \(Wording.time(pause.t)), before the pause took "
                + "effect (a change the app was already making)")
        }
        let end = windowEnd(of: download, pausedAt: pause.t)
        findings.support(first.t, "download \(token) \(first.from) → suspended(user) "
            + "\(Wording.seconds(first.t - pause.t)) after the pause at \(Wording.time(pause.t))")
        if let left = download.changes.first(where: { $0.t > first.t && $0.t < end.t && $0.to != .suspended(.user) }) {
            let relaunched = trace.launches.filter { $0.t > first.t && $0.t <= left.t }.last
            let across = relaunched.map { " (across the launch after \($0.after) at \(Wording.time($0.t)))" } ?? ""
            findings.violation(left.t, "download \(token) left suspended(user) (→ \(left.to)) at \(Wording.time(left.t)) "
                + "with no resume since the pause at \(Wording.time(pause.t))\(across)", broke: .holdPause)
        }
        for launch in trace.launches where launch.t > first.t && launch.t < end.t {
            findings.support(launch.t, "the pause of download \(token) outlives the launch after \(launch.after) at "
                + "\(Wording.time(launch.t)): it still owes its pause")
        }
        judgeRequests(download, pausedAt: first.t, until: end.t)
        judgeDisk(download, pausedAt: first.t, until: end.t)
        if let resume = end.resume { judgeResume(download, resume) }
    }

    /// What ended the pause made at `t`: the end of the span of `download`'s intent that
    /// it began (`ObligationModel`: the user's next resume, cancel or delete, a kill
    /// relaunched after a force-quit or a reboot, or the end of the trace), with the resume
    /// when that is what ended it.
    private func windowEnd(of download: TracedDownload, pausedAt t: UInt64) -> (t: UInt64, resume: TracedUserAction?) {
        guard let span = model.intents[download.token]?.first(where: { $0.intent == .paused && $0.start >= t }),
            span.start == t
        else { return (t, nil) }
        guard let end = span.end else { return (trace.end, nil) }
        let resume = trace.userActions.first {
            $0.download == download.token && $0.t == end && $0.error == nil && $0.action == "resume"
        }
        return (end, resume)
    }

    /// Other downloads of `download`'s video unfinished at some time from `start` to `end`.
    private func sharing(_ download: TracedDownload, from start: UInt64, to end: UInt64) -> [TracedDownload] {
        trace.downloads.filter { other in
            other.token != download.token && other.video == download.video && other.requestedAt < end
                && (other.completion.map { $0.t > start } ?? true)
        }
    }

    /// The storage rule: nothing of the video becomes whole, no partial file of it grows,
    /// between the first and the last read of the app's storage in the pause.
    private mutating func judgeDisk(_ download: TracedDownload, pausedAt start: UInt64, until end: UInt64) {
        let token = download.token
        let reads = trace.pausedDisks.filter { $0.download == token && $0.t > start && $0.t <= end }
        guard let first = reads.first, let last = reads.last, first.t < last.t,
            sharing(download, from: start, to: end).isEmpty
        else { return }
        let stored = last.stored.subtracting(first.stored).sorted()
        let grown = last.partial.compactMap { path, bytes -> String? in
            let had = first.partial[path] ?? 0
            return bytes > had && !last.stored.contains(path) ? "\(path) (+\(bytes - had) bytes)" : nil
        }.sorted()
        let span = "between the harness's reads of the app's storage at \(Wording.time(first.t)) and "
            + "\(Wording.time(last.t))"
        guard stored.isEmpty, grown.isEmpty else {
            var what: [String] = []
            if !stored.isEmpty { what.append("stored \(Wording.list(stored))") }
            if !grown.isEmpty { what.append("wrote more of \(Wording.list(grown))") }
            findings.violation(last.t, "download \(token) \(what.joined(separator: " and ")) while paused (since "
                + "\(Wording.time(start))), \(span): a paused transfer goes on", broke: .holdPause)
            return
        }
        findings.support(last.t, "nothing more of \(download.video) was stored \(span), while download \(token) was paused")
    }

    private mutating func judgeRequests(_ download: TracedDownload, pausedAt start: UInt64, until end: UInt64) {
        let token = download.token
        let sharing = sharing(download, from: start, to: end)
        guard sharing.isEmpty else {
            findings.support(start, "download \(token) shares video \(download.video) with unfinished download "
                + "\(sharing[0].token): its requests during the pause are not judged")
            return
        }
        let from = start.plus(context.pauseGrace.nanoseconds)
        let during = trace.originRequests(forVideo: download.video).filter {
            OriginPath.isMediaSegment($0.path) && $0.sentBy > from && $0.sentBy < end
        }
        for request in during {
            let sent = request.sentAt.map { _ in "sent by \(Wording.time(request.sentBy)) (read by the conditioner), " } ?? ""
            findings.violation(request.sentBy, "origin \(request.record.method) \(request.path) \(sent)started at "
                + "\(Wording.time(request.start)) (\(request.record.bytesSent) bytes) while download \(token) was paused "
                + "(since \(Wording.time(start)), until \(Wording.time(end)))", broke: .holdPause)
        }
        if during.isEmpty {
            findings.support(end, "no segment of \(download.video) was requested from \(Wording.time(from)) "
                + "(the pause plus \(Wording.bound(context.pauseGrace))) to \(Wording.time(end))")
        }
    }

    private mutating func judgeResume(_ download: TracedDownload, _ resume: TracedUserAction) {
        let token = download.token
        let next = download.firstChange(from: resume.t) { _ in true }
        guard let next, next.from == .suspended(.user), next.t - resume.t <= context.resumeBound.nanoseconds else {
            let found = next.map { "\($0.from) → \($0.to) after \(Wording.seconds($0.t - resume.t))" } ?? "no state change"
            findings.violation(next?.t ?? resume.t, "download \(token) was resumed at \(Wording.time(resume.t)); it must "
                + "leave suspended(user) within \(Wording.bound(context.resumeBound)), found \(found)",
                broke: .goOnAfterResume)
            return
        }
        findings.support(next.t, "download \(token) suspended(user) → \(next.to) "
            + "\(Wording.seconds(next.t - resume.t)) after the resume at \(Wording.time(resume.t))")
        let ended = trace.userActions.contains {
            $0.download == token && $0.t > resume.t && $0.error == nil && ["cancel", "delete"].contains($0.action)
        } || trace.restarts.contains { $0.kill.t > resume.t }
        let owed = model.owesCompletion(download)
        if let completion = download.completion {
            findings.support(completion.t, "download \(token) → downloaded after the resume")
        } else if let last = download.changes.last, last.to == .failed, let failure = model.failure(download, last) {
            let why = failure.cause.map { "for a permanent cause: \($0.words)" } ?? "with no cause the world showed"
            findings.support(last.t, "download \(token) → failed after the resume, \(why) (judged by \(failure.judgedBy))")
        } else if !owed.owed {
            findings.support(download.changes.last?.t ?? resume.t, "download \(token) after the resume: \(owed.why)")
        } else if !ended {
            findings.violation(download.changes.last?.t ?? resume.t, "download \(token) ended "
                + "\(download.finalState.map { "\($0)" } ?? "without a state"), not downloaded, after the resume at "
                + "\(Wording.time(resume.t))", broke: .complete)
        }
    }
}

extension AppState {
    /// Whether a download in this state is under way: requested, downloading or
    /// suspended (a user pause applies to it).
    var isRunning: Bool {
        self == .requested || self == .downloading || suspensionCause != nil
    }
}
