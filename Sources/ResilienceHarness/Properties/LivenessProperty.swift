import BenchCore
import AppProtocol

extension Property {
    /// `liveness`: a download that may go on does go on.
    ///
    /// The app is *obliged* to move bytes at an instant when one of its downloads owes
    /// `transfer` there (`ObligationModel.owed`): the app runs (launched and not killed
    /// since), the download is wanted by the user (requested, not paused, cancelled,
    /// deleted, or lost to a force-quit; a pause outlives a crash), not yet `downloaded`,
    /// `failed`, `canceling` or `notDownloaded` as the app reported, and an interface it
    /// may use is up and reachable (up at the conditioner, and its link not one that
    /// delivers nothing: total loss or no rate). A protected download is excused while the
    /// app is in the background and no license has reached it (licenses are exchanged
    /// only in the foreground); once it holds one, it goes on in the background.
    ///
    /// While obliged, the origin must send the app bytes (a request through the
    /// conditioner that sent a body, for a live download's video, its catalog entry or
    /// a license) at least once per `context.livenessBound`: the stall timeout plus the
    /// backoff bound. Every silence longer than that, measured from the start of the
    /// obligation or the end of the last such request, fails, with the downloads that
    /// were live and the states they reported as evidence. Claims of the app only end
    /// the obligation (a download it says is done); they never satisfy it.
    public static let liveness = Property(
        id: "liveness",
        description: "While an interface a download may use is up and reachable, a download that is not paused, "
            + "finished or failed receives bytes at the origin within the stall timeout plus the backoff bound."
    ) { trace, context in
        LivenessRule(trace: trace, context: context, model: ObligationModel(trace: trace, context: context)).judge()
    }
}

/// The rule of `liveness`: obligation intervals, activity intervals, and the silences
/// of the first not covered by the second.
private struct LivenessRule {
    let trace: ScenarioTrace
    let context: PropertyContext
    let model: ObligationModel

    /// A stretch during which the app had to move bytes, and for which downloads.
    struct Owed {
        var start: UInt64
        var end: UInt64
        var downloads: [String]
    }

    func judge() -> Verdict {
        var findings = PropertyFindings("liveness")
        let bound = context.livenessBound.nanoseconds
        let activity = activityIntervals()
        var worst: (length: UInt64, at: UInt64)?
        var obliged: UInt64 = 0
        for obligation in obligations() {
            findings.checkedOne()
            obliged += obligation.end - obligation.start
            for silence in silences(in: obligation, activity: activity) {
                let length = silence.end - silence.start
                if length > (worst?.length ?? 0) { worst = (length, silence.start) }
                guard length > bound else { continue }
                findings.violation(silence.start, describe(silence, of: obligation), broke: .transfer)
            }
        }
        let boundText = "bound \(Wording.bound(context.livenessBound)) = stall timeout "
            + "\(Wording.bound(context.stallTimeout)) + backoff bound \(Wording.bound(context.backoffBound))"
        let longest = worst.map { "longest silence \(Wording.seconds($0.length)) from \(Wording.time($0.at))" }
            ?? "no silence"
        if let worst, !findings.hasViolations {
            findings.support(worst.at, "\(longest) while a download could go on (\(boundText))")
        }
        return findings.verdict(
            passed: "Bytes reached the app at least once per bound over \(Wording.seconds(obliged)) during which a "
                + "download could go on: \(longest) (\(boundText)).",
            failed: "\(Wording.count(findings.violations.count, "silence")) longer than the bound (\(boundText)); "
                + "first: \(Wording.first(findings)).",
            notApplicable: "No download was ever live with an interface it may use up.")
    }

    // MARK: Obligation

    /// The maximal stretches of the trace during which the app was obliged to move bytes:
    /// cut wherever any download's obligations change.
    func obligations() -> [Owed] {
        var cuts = Set<UInt64>([0, trace.end])
        for download in trace.downloads {
            for stretch in model.stretches(of: download) {
                cuts.insert(stretch.start)
                cuts.insert(stretch.end)
            }
        }
        let times = cuts.filter { $0 <= trace.end }.sorted()
        var result: [Owed] = []
        for (start, end) in zip(times, times.dropFirst()) where end > start {
            let live = obligedDownloads(at: start)
            guard !live.isEmpty else { continue }
            if var last = result.last, last.end == start {
                last.end = end
                last.downloads = Array(Set(last.downloads).union(live)).sorted()
                result[result.count - 1] = last
            } else {
                result.append(Owed(start: start, end: end, downloads: live))
            }
        }
        return result
    }

    /// The downloads that owed `transfer` at `t` (an elementary stretch starting at `t`).
    func obligedDownloads(at t: UInt64) -> [String] {
        trace.downloads.filter { model.owed($0, at: t).contains(.transfer) }.map(\.token)
    }

    // MARK: Activity

    /// When the origin was sending the app bytes it needed: each request that came
    /// through the conditioner and sent a body, for a requested video, a catalog
    /// entry or a license, from its start to its end. Sorted by start.
    func activityIntervals() -> [(start: UInt64, end: UInt64)] {
        let videos = Set(trace.downloads.map(\.video))
        return trace.originRequests.filter { request in
            request.record.interface != nil && request.record.bytesSent > 0
                && (request.video.map(videos.contains) ?? true)
        }.map { ($0.start, $0.t) }.sorted { $0.start < $1.start }
    }

    /// The stretches of `obligation` covered by no activity.
    func silences(in obligation: Owed, activity: [(start: UInt64, end: UInt64)])
        -> [(start: UInt64, end: UInt64)]
    {
        var result: [(start: UInt64, end: UInt64)] = []
        var cursor = obligation.start
        for interval in activity where interval.end > cursor && interval.start < obligation.end {
            if interval.start > cursor { result.append((cursor, interval.start)) }
            cursor = max(cursor, interval.end)
            if cursor >= obligation.end { break }
        }
        if cursor < obligation.end { result.append((cursor, obligation.end)) }
        return result
    }

    // MARK: Evidence

    private func describe(_ silence: (start: UInt64, end: UInt64), of obligation: Owed) -> String {
        // A silence starts where an obligation or an activity does: the downloads live there.
        let up = trace.interfaces.up(at: silence.start).map(\.rawValue).sorted().joined(separator: ", ")
        let live = obligedDownloads(at: silence.start)
        let states = live.map { token -> String in
            let download = trace.download(token)
            let state = download?.state(atOrBefore: silence.start).map { "\($0)" } ?? "no state"
            let since = download?.changes.last { $0.t <= silence.start }.map { " since \(Wording.time($0.t))" } ?? ""
            let later = download?.firstChange(from: silence.start.plus(1)) { _ in true }
                .map { ", then \($0.to) at \(Wording.time($0.t))" } ?? ""
            return "\(token) \(state)\(since)\(later)"
        }
        let ending = silence.end >= trace.end && obligation.end >= trace.end ? " (until the trace ended)" : ""
        return "no bytes reached the app from \(Wording.time(silence.start)) to \(Wording.time(silence.end))"
            + "\(ending), \(Wording.seconds(silence.end - silence.start)), while [\(up)] was up and "
            + "\(Wording.count(live.count, "download")) could go on: \(states.joined(separator: "; "))"
    }
}
