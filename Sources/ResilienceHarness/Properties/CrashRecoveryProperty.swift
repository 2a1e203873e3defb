import BenchCore
import AppProtocol

extension Property {
    /// `crash-recovery` (DESIGN.md §5, property 3), judged on what the harness saw: its
    /// own disk snapshot at each kill (`.harness(.diskAtKill)`: files identified by
    /// content as stored or partial copies of origin paths) and the origin's log.
    ///
    /// For each `.harness(.killed)` and the `.harness(.launched)` that followed it:
    /// - after a launch after `crash`, `memoryPressure` or `clean` (the kill must have a
    ///   disk snapshot): (a) no resource stored whole on disk at the kill is fetched
    ///   again (a request with body bytes for it after the kill and before the next one:
    ///   `refetchCheck`); (b) each resource partly on disk (N bytes) is resumed: its
    ///   request after the kill asks `Range: bytes=N-`, or for a byte range a–b of a
    ///   single-file stream `Range: bytes=<a+N>-<b>` (`rangeResumes`: from fewer bytes,
    ///   from byte 0 or without Range it fetches bytes again; from more it leaves a gap;
    ///   from outside a range, another part of the file; one not requested again before
    ///   the next kill is only listed); the origin's playlists (`PropertyContext.renditions`)
    ///   tell which named range a request or a claim is for; (c) every download that was `requested`,
    ///   `downloading`, `suspended` or `downloaded` at the kill ends `downloaded` when it
    ///   still owes `complete` at the end (`ObligationModel.owesCompletion`): not when the
    ///   user paused it (at the kill or later) and never resumed it, which owes its pause
    ///   (`pause-holds` judges it), nor when the user cancelled or deleted it; a download
    ///   paused at the kill and resumed later is `pause-holds`' to see completed. One that
    ///   ended `failed` is judged once, by the property of its situation
    ///   (`ObligationModel.failures`): a failure with a permanent cause is listed here.
    ///   Byte-identity is `integrity`'s.
    /// - after a launch after `userForceQuit` or `rebootWhileSuspended`: every download
    ///   in flight at the kill (`downloading` or `suspended`) is, as its first change
    ///   after the launch, `→ failed` within `forceQuitBound` (`GuideRules`) of the app
    ///   being up: of the harness reading its answer to `hello` (`TracedLaunch.answered`;
    ///   the process's start when the trace has none). A process's start-up on a busy
    ///   machine is not the app's delay: counted from the spawn, the reference engine took
    ///   6 s under a loaded test run, all of it before it could speak.
    /// - at every kill with a snapshot, the app's claims are checked against the disk:
    ///   each segment it reported stored (`segmentStored`, before the kill, of a
    ///   download still kept) must be stored whole on disk, and each segment it reports
    ///   partly stored at the next launch (`partialSegmentsFound`) must be partly on
    ///   disk with the same size.
    /// - a kill followed by a launch after `crash` or `memoryPressure` counts toward
    ///   `context.minimumCrashRestarts` only when bytes were in flight: a media
    ///   response was on its way to the app at the kill (`mediaBytesInFlight(at:disk:)`:
    ///   the origin still sending it, the conditioner not having delivered all of it, or
    ///   the disk holding less of it than it carried on a connection still open).
    ///   Fewer counting kills than the minimum fail the property.
    public static let crashRecovery = Property(
        id: "crash-recovery",
        description: "After a kill and relaunch, downloads complete without fetching again what the disk held whole, "
            + "resume what it held in part by Range, or fail at once after a force-quit or reboot."
    ) { trace, context in
        var rule = CrashRecoveryRule(trace: trace, context: context, model: ObligationModel(trace: trace, context: context))
        return rule.judge()
    }
}

/// The walk behind `crash-recovery`; the disk rules (refetch, Range, claims) are in
/// `CrashRecoveryProperty+Range.swift`.
struct CrashRecoveryRule {
    let trace: ScenarioTrace
    let context: PropertyContext
    let model: ObligationModel
    var findings = PropertyFindings("crash-recovery")
    var judgedCompletion: Set<String> = []
    /// Claims already found false (each reported once).
    var falseClaims: Set<String> = []
    var refetchedBytes = 0
    var storedAtKills = 0
    /// Partial copies resumed with the right Range.
    var rangeResumes = 0
    /// Kills followed by a launch after a crash or memory pressure, with bytes in
    /// flight (`counted`) and without (`notCounted`, their times).
    var counted = 0
    var notCounted: [UInt64] = []
    var lostRestarts = 0

    mutating func judge() -> Verdict {
        for (index, restart) in trace.restarts.enumerated() {
            guard let launch = restart.launch else {
                findings.support(restart.kill.t, "agent killed (\(restart.kill.reason)) and not launched again")
                continue
            }
            findings.checkedOne()
            if let snapshot = trace.diskSnapshot(restart: index) {
                judgeClaims(restart: index, restart.kill, snapshot)
            }
            if launch.after.failsDownloadsInFlight {
                lostRestarts += 1
                judgeLost(restart: index, restart.kill, launch)
            } else {
                if launch.after != .clean { judgeInFlight(restart: index, restart.kill) }
                judgeResumed(restart: index, restart.kill, launch)
            }
        }
        let relaunches = findings.checked
        judgeCount()
        let restarts = Wording.count(relaunches, "kill and relaunch", plural: "kills and relaunches")
            + " (\(counted) after a crash or memory pressure with bytes in flight"
            + (notCounted.isEmpty ? "" : ", \(notCounted.count) with nothing in flight")
            + ", \(lostRestarts) after a force-quit or reboot)"
        return findings.verdict(
            passed: "Recovery held over \(restarts): \(Wording.count(storedAtKills, "path")) stored whole on disk at "
                + "the kills, \(refetchedBytes) bytes of them fetched again, "
                + "\(Wording.count(rangeResumes, "partial copy", plural: "partial copies")) resumed by Range.",
            failed: "\(Wording.count(findings.violations.count, "violation")) over \(restarts); first: "
                + "\(Wording.first(findings)).",
            notApplicable: "The agent was never killed and launched again.")
    }

    /// Whether a kill before a launch after a crash or memory pressure counts: bytes
    /// of a media response were on their way to the app (`mediaBytesInFlight(at:disk:)`).
    private mutating func judgeInFlight(restart index: Int, _ kill: TracedKill) {
        let cut = trace.mediaBytesInFlight(at: kill.t, disk: trace.diskSnapshot(restart: index))
        guard let first = cut.first else {
            notCounted.append(kill.t)
            findings.support(kill.t, "the kill at \(Wording.time(kill.t)) does not count: no media response was on its "
                + "way to the app at it (nothing in flight)")
            return
        }
        counted += 1
        let request = first.request
        let how = switch first.evidence {
        case .originSending:
            "the origin was sending \(request.record.method) \(request.path) at it (\(request.record.bytesSent) bytes "
                + "from \(Wording.time(request.start)) to \(Wording.time(request.t)))"
        case let .undelivered(connection, bytes):
            "\(request.record.method) \(request.path) (from \(Wording.time(request.start))) was cut: the origin had "
                + "sent \(bytes) body bytes more on the app's connection \(connection) than the conditioner ever "
                + "delivered to the app"
        case let .notOnDisk(connection, through, held) where request.askedBytes?.last != nil:
            // A bounded Range: a byte range of the file (positions are the file's).
            "\(request.record.method) \(request.path) with Range \(request.record.range ?? "") (from "
                + "\(Wording.time(request.start)), on the app's connection \(connection), open at the kill) had carried "
                + "the file's bytes up to \(through), but the disk held "
                + (held > request.servedBytes.lowerBound ? "them only up to \(held)" : "none of them") + " at the kill: "
                + "\(through - max(held, request.servedBytes.lowerBound)) bytes were on their way"
        case let .notOnDisk(connection, through, held):
            "\(request.record.method) \(request.path) (from \(Wording.time(request.start)), on the app's connection "
                + "\(connection), open at the kill) had carried its bytes up to \(through), but the disk held "
                + "\(held) at the kill: \(through - held) bytes were on their way"
        }
        findings.support(kill.t, "the kill at \(Wording.time(kill.t)) counts: \(how)"
            + (cut.count > 1 ? " (\(Wording.count(cut.count, "media response")) in flight)" : ""))
    }

    /// `minimumCrashRestarts`: a scenario that must crash several times did, with bytes in flight.
    private mutating func judgeCount() {
        let minimum = context.minimumCrashRestarts
        guard minimum > 0 else { return }
        let made = "\(Wording.count(counted, "kill")) with bytes in flight followed by a launch after a crash or "
            + "memory pressure"
        let without = notCounted.isEmpty ? "" : " (not counted: the kill"
            + (notCounted.count == 1 ? "" : "s") + " at " + notCounted.map(Wording.time).joined(separator: ", ")
            + ", with nothing in flight)"
        if counted < minimum {
            findings.checkedOne()
            findings.violation(trace.end, "only \(made)\(without); this scenario must make at least \(minimum)",
                broke: .recover)
        } else {
            findings.support(trace.end, "\(made)\(without) (at least \(minimum) required)")
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
        guard trace.diskSnapshot(restart: index) != nil else {
            findings.violation(launch.t, "no disk snapshot was recorded at the kill at \(Wording.time(kill.t)): what "
                + "the app kept, and so its refetches and resumes, cannot be judged", broke: .recover)
            return
        }
        judgeRefetches(restart: index, kill, launch)
        judgeRangeResumes(restart: index, kill, launch)
    }

    private mutating func judgeCompletion(_ download: TracedDownload, kill: TracedKill, launch: TracedLaunch) {
        guard judgedCompletion.insert(download.token).inserted else { return }
        let after = "after the kill at \(Wording.time(kill.t)) and the launch after \(launch.after)"
        if model.intent(of: download, at: kill.t) == .paused {
            findings.support(kill.t, "download \(download.token) was paused by the user at the kill at "
                + "\(Wording.time(kill.t)): it owes its pause after the launch after \(launch.after), not its completion "
                + "(hold-pause and, once resumed, go-on-after-resume: judged by pause-holds)")
            return
        }
        let owed = model.owesCompletion(download)
        guard owed.owed else {
            if model.finalIntent(of: download)?.intent != .removed {
                findings.support(download.changes.last?.t ?? launch.t, "download \(download.token) \(after): \(owed.why)")
            }
            return
        }
        if let completion = download.completion {
            findings.support(completion.t, "download \(download.token) \(completion.from) → downloaded \(after)")
            return
        }
        let last = download.changes.last
        if let last, last.to == .failed, let failure = model.failure(download, last) {
            let judged = failure.judgedBy == "crash-recovery" ? "" : " (judged by \(failure.judgedBy))"
            let why = failure.cause.map { "for a permanent cause: \($0.words)" } ?? "with no cause the world showed"
            findings.support(last.t, "download \(download.token) \(last.from) → failed \(after), \(why)\(judged)")
            return
        }
        findings.violation(
            last?.t ?? launch.t,
            "download \(download.token) ended \(last.map { "\($0.to)" } ?? "without a state"), not downloaded, \(after)",
            broke: .complete)
    }

    // MARK: After a force-quit or reboot: fail at once

    /// The app reports its state changes once it runs, which may be before the
    /// harness has its answer to `hello` (`launch.answered`): the first change is looked
    /// for from the moment the killed process was reaped (its disk snapshot; the kill
    /// without one), when nothing the old process said can come any more. The bound
    /// counts from the answer to `hello`: a change before it is at once.
    private mutating func judgeLost(restart index: Int, _ kill: TracedKill, _ launch: TracedLaunch) {
        let bound = context.forceQuitBound.nanoseconds
        let from = trace.diskSnapshot(restart: index)?.t ?? kill.t
        let up = launch.answered ?? launch.t
        let since = launch.answered == nil
            ? "the launch after \(launch.after) at \(Wording.time(launch.t))"
            : "the app answered hello at \(Wording.time(up)) (launched after \(launch.after) at \(Wording.time(launch.t)))"
        for download in trace.downloads {
            guard let state = download.state(before: kill.t), state == .downloading || state.suspensionCause != nil
            else { continue }
            let first = download.firstChange(from: from) { _ in true }
            let after = { (t: UInt64) in t > up ? t - up : 0 }
            if let first, first.to == .failed, after(first.t) <= bound {
                findings.support(first.t, "download \(download.token) \(first.from) → failed "
                    + "\(Wording.seconds(after(first.t))) after \(since)")
                continue
            }
            let found = first.map { "\($0.from) → \($0.to) after \(Wording.seconds(after($0.t)))" } ?? "no state change"
            findings.violation(first?.t ?? up, "download \(download.token) was \(state) at the kill; after "
                + "\(since) it must fail within \(Wording.bound(context.forceQuitBound)), found \(found)",
                broke: .failAtLaunch)
        }
    }
}
