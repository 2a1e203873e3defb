import BenchCore
import AppProtocol

extension Property {
    /// `crash-recovery` (DESIGN.md §5, property 3).
    ///
    /// For each `.harness(.killed)` and the `.harness(.launched)` that followed it:
    /// - after a launch after `crash`, `memoryPressure` or `clean`: every download that
    ///   was `requested`, `downloading`, `suspended` or `downloaded` at the kill ends
    ///   `downloaded` (unless the user canceled or deleted it later); and no origin
    ///   request that starts after the kill (and before the next kill) is for a path
    ///   stored (`.agent(.segmentStored)`) before the kill. Paths stored by several
    ///   segments (byte-range media) are not judged: the trace does not say which
    ///   range a stored segment was. And every segment the agent found partly stored
    ///   at that launch (`.agent(.partialSegmentsFound)`, bytes > 0) is resumed: the
    ///   first request for it after the kill asks for `Range: bytes=<bytes>-` (the rest
    ///   of its own range for a byte-range segment), not for byte 0 again (one not
    ///   requested again before the next kill is only listed).
    /// - after a launch after `userForceQuit` or `rebootWhileSuspended`: every download
    ///   in flight at the kill (`downloading` or `suspended`) is, as its first change
    ///   after the launch, `→ failed` within `forceQuitBound`.
    /// - with `context.minimumCrashRestarts` > 0, the trace has at least that many kills
    ///   followed by a launch after `crash` or `memoryPressure` (a scenario that exists
    ///   to crash several times sets it, so that a run that killed fewer cannot pass).
    /// Byte-identity with the origin is `integrity`'s to judge.
    public static let crashRecovery = Property(
        id: "crash-recovery",
        description: "After a kill and relaunch, downloads complete without fetching stored segments again and resume "
            + "partial ones by Range, or fail at once after a force-quit or reboot."
    ) { trace, context in
        var rule = CrashRecoveryRule(trace: trace, context: context)
        return rule.judge()
    }
}

/// The walk behind `crash-recovery`; the Range rule is in `CrashRecoveryProperty+Range.swift`.
struct CrashRecoveryRule {
    let trace: ScenarioTrace
    let context: PropertyContext
    var findings = PropertyFindings("crash-recovery")
    var judgedCompletion: Set<String> = []
    var refetchedBytes = 0
    /// Relaunches after a crash or memory pressure, and after a force-quit or reboot.
    var crashRestarts = 0
    var lostRestarts = 0
    /// Partial segments resumed with the right Range.
    var rangeResumes = 0

    mutating func judge() -> Verdict {
        for (index, restart) in trace.restarts.enumerated() {
            guard let launch = restart.launch else {
                findings.support(restart.kill.t, "agent killed (\(restart.kill.reason)) and not launched again")
                continue
            }
            findings.checkedOne()
            if launch.after.failsDownloadsInFlight {
                lostRestarts += 1
                judgeLost(restart.kill, launch)
            } else {
                if launch.after != .clean { crashRestarts += 1 }
                judgeResumed(restart: index, restart.kill, launch)
            }
        }
        let relaunches = findings.checked
        judgeCount()
        let restarts = Wording.count(relaunches, "kill and relaunch", plural: "kills and relaunches")
            + " (\(crashRestarts) after a crash or memory pressure, \(lostRestarts) after a force-quit or reboot)"
        return findings.verdict(
            passed: "Recovery held over \(restarts): \(refetchedBytes) bytes of stored segments fetched again, "
                + "\(Wording.count(rangeResumes, "partial segment")) resumed by Range.",
            failed: "\(Wording.count(findings.violations.count, "violation")) over \(restarts); first: "
                + "\(Wording.first(findings)).",
            notApplicable: "The agent was never killed and launched again.")
    }

    /// `minimumCrashRestarts`: a scenario that must crash several times did.
    private mutating func judgeCount() {
        let minimum = context.minimumCrashRestarts
        guard minimum > 0 else { return }
        let made = "\(Wording.count(crashRestarts, "kill")) followed by a launch after a crash or memory pressure"
        if crashRestarts < minimum {
            findings.checkedOne()
            findings.violation(trace.end, "only \(made); this scenario must make at least \(minimum)")
        } else {
            findings.support(trace.end, "\(made) (at least \(minimum) required)")
        }
    }

    // MARK: After a crash: resume and complete, no re-fetch

    private mutating func judgeResumed(restart index: Int, _ kill: TracedKill, _ launch: TracedLaunch) {
        let concerned: (AppState) -> Bool = { state in
            [.requested, .downloading, .downloaded].contains(state) || state.suspensionCause != nil
        }
        for download in trace.downloads {
            guard let state = download.state(before: kill.t), concerned(state) else { continue }
            judgeCompletion(download, kill: kill, launch: launch)
        }
        judgeRefetches(restart: index, kill, launch)
        judgeRangeResumes(restart: index, kill, launch)
    }

    private mutating func judgeCompletion(_ download: TracedDownload, kill: TracedKill, launch: TracedLaunch) {
        guard judgedCompletion.insert(download.token).inserted else { return }
        let userEnded = trace.userActions.contains {
            $0.download == download.token && $0.t > kill.t && ["cancel", "delete"].contains($0.action)
        }
        guard !userEnded else { return }
        if let completion = download.completion {
            findings.support(completion.t, "download \(download.token) \(completion.from) → downloaded after the "
                + "kill at \(Wording.time(kill.t)) and the launch after \(launch.after)")
            return
        }
        let last = download.changes.last
        findings.violation(
            last?.t ?? launch.t,
            "download \(download.token) ended \(last.map { "\($0.to)" } ?? "without a state"), not downloaded, after "
                + "the kill at \(Wording.time(kill.t)) and the launch after \(launch.after)")
    }

    private mutating func judgeRefetches(restart index: Int, _ kill: TracedKill, _ launch: TracedLaunch) {
        guard let check = trace.refetchCheck(restart: index) else { return }
        for path in check.sharedPaths {
            findings.support(kill.t, "\(path) holds several stored segments (byte ranges); its refetches are not judged")
        }
        for refetch in check.refetches {
            let record = refetch.request.record
            refetchedBytes = refetchedBytes.plus(record.bytesSent)
            findings.violation(refetch.request.start, "origin \(record.method) \(refetch.request.path)"
                + "\(record.range.map { " (\($0))" } ?? "") sent \(record.bytesSent) bytes after the kill at "
                + "\(Wording.time(kill.t)); download \(refetch.segment.download) had stored it at "
                + "\(Wording.time(refetch.segment.t))")
        }
        if check.refetches.isEmpty {
            findings.support(launch.t, "none of the \(Wording.count(check.stored.count, "segment path")) stored before "
                + "the kill at \(Wording.time(kill.t)) was requested again "
                + "(\(Wording.count(check.requestsAfter.count, "request")) after it)")
        }
    }

    // MARK: After a force-quit or reboot: fail at once

    private mutating func judgeLost(_ kill: TracedKill, _ launch: TracedLaunch) {
        let bound = context.forceQuitBound.nanoseconds
        for download in trace.downloads {
            guard let state = download.state(before: kill.t), state == .downloading || state.suspensionCause != nil
            else { continue }
            let first = download.firstChange(from: launch.t) { _ in true }
            if let first, first.to == .failed, first.t - launch.t <= bound {
                findings.support(first.t, "download \(download.token) \(first.from) → failed "
                    + "\(Wording.seconds(first.t - launch.t)) after the launch after \(launch.after)")
                continue
            }
            let found = first.map { "\($0.from) → \($0.to) after \(Wording.seconds($0.t - launch.t))" } ?? "no state change"
            findings.violation(first?.t ?? launch.t, "download \(download.token) was \(state) at the kill; after the "
                + "launch after \(launch.after) at \(Wording.time(launch.t)) it must fail within "
                + "\(Wording.bound(context.forceQuitBound)), found \(found)")
        }
    }
}
