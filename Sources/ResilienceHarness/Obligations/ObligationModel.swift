import AppProtocol
import BenchCore

/// What each download owes at each instant of a scenario (docs/obligations.md), derived
/// once from the world and the harness's actions: the user's intent (`UserIntent`, a pause
/// outliving a crash), whether the app runs, which interfaces it may use are up and
/// reachable, the lifecycle and the licenses that reached it. The app's claims only end
/// an obligation (a download it says is downloaded no longer owes bytes; `integrity`
/// checks that claim), never fulfil one.
///
/// Properties are views over it: `liveness` judges the stretches that owe `transfer`,
/// `pause-holds` the spans that owe `holdPause`, `crash-recovery` which downloads owe
/// `complete` after a kill, and every `→ failed` is judged once (`failures`) and reported
/// by the property of its situation. So their windows cannot disagree.
public struct ObligationModel: Sendable {
    public let trace: ScenarioTrace
    public let context: PropertyContext
    /// Each download's intent spans, by token.
    public let intents: [String: [IntentSpan]]
    /// Every failure, judged.
    public let failures: [FailureJudgement]

    /// A stretch of the trace during which a download's obligations did not change.
    public struct Stretch: Sendable, Hashable {
        public var start: UInt64
        public var end: UInt64
        public var owed: Set<Obligation>
    }

    public init(trace: ScenarioTrace, context: PropertyContext) {
        self.trace = trace
        self.context = context
        intents = Dictionary(uniqueKeysWithValues: trace.downloads.map { ($0.token, trace.intentSpans(of: $0)) })
        failures = trace.failures(context)
    }

    // MARK: Intent

    /// The intent of `download` at `t`; nil before its request.
    public func intent(of download: TracedDownload, at t: UInt64) -> UserIntent? {
        intents[download.token]?.last { $0.contains(t) }?.intent
    }

    /// The span of `download`'s intent that holds at `t`.
    public func intentSpan(of download: TracedDownload, at t: UInt64) -> IntentSpan? {
        intents[download.token]?.last { $0.contains(t) }
    }

    /// The intent at the trace's end (wanted when the harness never acted on it).
    public func finalIntent(of download: TracedDownload) -> IntentSpan? {
        intents[download.token]?.last
    }

    // MARK: The world

    /// The app runs at `t`: the harness launched it and has not killed it since.
    public func isRunning(at t: UInt64) -> Bool {
        guard let launch = trace.launches.last(where: { $0.t <= t }) else { return false }
        return !trace.restarts.contains { $0.kill.t >= launch.t && $0.kill.t <= t }
    }

    /// The interfaces `download` may use that are up at `t` and whose links deliver.
    public func reachable(for download: TracedDownload, at t: UInt64) -> Set<InterfaceKind> {
        trace.interfaces.up(at: t).intersection(download.allowedInterfaces).filter {
            context.unreachable.isReachable($0, at: t)
        }
    }

    /// A license for protected `download` had reached the app by `t` (its response
    /// begun, and completed: `LicenseServerLog.begun`); true for a clear one.
    public func holdsLicense(_ download: TracedDownload, at t: UInt64) -> Bool {
        guard download.isProtected else { return true }
        guard let asset = download.licenseKey?.assetID else { return false }
        return trace.licenseServer.begun(forAsset: asset, before: t) != nil
    }

    /// The app's own word that `download` needs nothing more at `t`: downloaded, failed or
    /// gone (`canceling`, `notDownloaded` after its request).
    func claimsSettled(_ download: TracedDownload, at t: UInt64) -> Bool {
        let terminal: Set<AppState> = [.downloaded, .failed, .canceling, .notDownloaded]
        return download.changes.contains { $0.t >= download.requestedAt && $0.t <= t && terminal.contains($0.to) }
    }

    // MARK: Obligations

    /// What `download` owes at `t` (empty before its request).
    public func owed(_ download: TracedDownload, at t: UInt64) -> Set<Obligation> {
        guard let intent = intent(of: download, at: t) else { return [] }
        var owed: Set<Obligation> = [.failOnlyForCause]
        switch intent {
        case .removed:
            owed.insert(.leaveNothing)
            return owed
        case .lost:
            owed.insert(.failAtLaunch)
            return owed
        case .paused:
            owed.insert(.holdPause)
            return owed
        case .wanted:
            break
        }
        if claimsSettled(download, at: t) { return owed.union(download.state(atOrBefore: t) == .downloaded ? [.keepPackage] : []) }
        if download.isProtected { owed.insert(.licenseFirst) }
        guard isRunning(at: t) else { return owed }
        if trace.interfaces.up(at: t).isDisjoint(with: download.allowedInterfaces) {
            owed.insert(.waitForNetwork)
        } else if !reachable(for: download, at: t).isEmpty,
            !(download.isProtected && trace.isInBackground(at: t) && !holdsLicense(download, at: t))
        {
            owed.insert(.transfer)
        }
        return owed
    }

    /// The maximal stretches of `download`'s life (request to the trace's end) with the
    /// same obligations: cut at every instant any input of `owed` can change.
    public func stretches(of download: TracedDownload) -> [Stretch] {
        let times = cuts(for: download).filter { $0 >= download.requestedAt && $0 <= trace.end }.sorted()
        var result: [Stretch] = []
        for (start, end) in zip(times, times.dropFirst()) where end > start {
            let owed = owed(download, at: start)
            if var last = result.last, last.end == start, last.owed == owed {
                last.end = end
                result[result.count - 1] = last
            } else {
                result.append(Stretch(start: start, end: end, owed: owed))
            }
        }
        return result
    }

    /// Every instant an input of `owed` may change for `download`.
    private func cuts(for download: TracedDownload) -> Set<UInt64> {
        var cuts = Set<UInt64>([download.requestedAt, trace.end])
        for step in trace.interfaces.steps { cuts.insert(step.t) }
        for spans in context.unreachable.spans.values {
            for span in spans {
                cuts.insert(span.start)
                if let end = span.end { cuts.insert(end) }
            }
        }
        for span in intents[download.token] ?? [] {
            cuts.insert(span.start)
            if let end = span.end { cuts.insert(end) }
        }
        for change in download.changes { cuts.insert(change.t) }
        for launch in trace.launches { cuts.insert(launch.t) }
        for restart in trace.restarts { cuts.insert(restart.kill.t) }
        for interval in trace.backgroundIntervals {
            cuts.insert(interval.start)
            if let end = interval.end { cuts.insert(end) }
        }
        if download.isProtected, let asset = download.licenseKey?.assetID {
            for issue in trace.licenseServer.issued(forAsset: asset) {
                if let began = issue.respondedAt { cuts.insert(began.plus(1)) }
            }
        }
        return cuts
    }

    // MARK: Completion

    /// Whether `download` owes `complete` at the trace's end, and, when it does not, why
    /// (for evidence): wanted then (not paused, removed or lost), or what the user did.
    public func owesCompletion(_ download: TracedDownload) -> (owed: Bool, why: String) {
        guard let last = finalIntent(of: download) else { return (false, "it was never requested") }
        switch last.intent {
        case .wanted: return (true, "the user wanted it at the end")
        case .paused:
            return (false, "the user paused it (\(last.startCause)) and never resumed it: it owes its pause, not its "
                + "completion (judged by pause-holds)")
        case .removed: return (false, "the user removed it (\(last.startCause))")
        case .lost: return (false, "\(last.startCause): it owes its failure (judged by crash-recovery)")
        }
    }

    /// The judgement of a `→ failed` of `download` at `change`, nil when it is not one.
    public func failure(_ download: TracedDownload, _ change: TracedStateChange) -> FailureJudgement? {
        failures.first { $0.download.token == download.token && $0.change == change }
    }
}
