import AppProtocol
import BenchCore

/// What the user wants of one download, from the harness's own actions only: requested
/// (wanted), paused, cancelled or deleted (removed), or lost to a relaunch that must fail
/// it. A pause outlives a kill and the relaunch after a crash, memory pressure or a clean
/// exit: only the user's resume (or cancel, or delete) ends it. The guides' table
/// (`RelaunchKind.failsDownloadsInFlight`) loses a download in flight at a force-quit or a
/// reboot while suspended: from that kill it owes its failure, paused or not.
public enum UserIntent: String, Sendable, Hashable {
    /// Requested and not paused: it owes its bytes, or its wait for the network.
    case wanted
    /// Paused by the user: it owes its pause.
    case paused
    /// Cancelled or deleted by the user: it owes nothing left behind.
    case removed
    /// In flight at a kill relaunched after a force-quit or a reboot: it owes its failure.
    case lost
}

/// One stretch of a download's intent: from `start` until `end` (exclusive; nil: the
/// trace's end), with what began and ended it, in words.
public struct IntentSpan: Sendable, Hashable {
    public var intent: UserIntent
    public var start: UInt64
    public var end: UInt64?
    public var startCause: String
    public var endCause: String?

    /// Whether `t` falls inside the span.
    public func contains(_ t: UInt64) -> Bool {
        t >= start && (end.map { t < $0 } ?? true)
    }
}

extension ScenarioTrace {
    /// The intent spans of `download`, in time order, from its request to the trace's end
    /// (empty before the request). Built from the harness's accepted actions and launches
    /// alone; the app's states enter only where the guides make them decide (which
    /// downloads were in flight at a kill: the app's last report before it).
    public func intentSpans(of download: TracedDownload) -> [IntentSpan] {
        var spans: [IntentSpan] = []
        var current = IntentSpan(intent: .wanted, start: download.requestedAt, startCause: "the user requested it")
        func move(to intent: UserIntent, at t: UInt64, _ cause: String) {
            guard intent != current.intent else { return }
            current.end = t
            current.endCause = cause
            spans.append(current)
            current = IntentSpan(intent: intent, start: t, startCause: cause)
        }
        for moment in intentMoments(of: download) {
            switch (current.intent, moment.kind) {
            case (.removed, _): break
            case (_, .removal): move(to: .removed, at: moment.t, moment.cause)
            case (.lost, _): break
            case (_, .loss): move(to: .lost, at: moment.t, moment.cause)
            case (.wanted, .pause): move(to: .paused, at: moment.t, moment.cause)
            case (.paused, .resume): move(to: .wanted, at: moment.t, moment.cause)
            default: break
            }
        }
        spans.append(current)
        return spans
    }

    /// The intent of `download` at `t`; nil before its request.
    public func intent(of download: TracedDownload, at t: UInt64) -> UserIntent? {
        intentSpans(of: download).last { $0.contains(t) }?.intent
    }

    /// What moves a download's intent: the user's accepted actions on it, and each
    /// launch after a force-quit or a reboot while it was in flight at the kill before.
    private func intentMoments(of download: TracedDownload) -> [(t: UInt64, kind: IntentMoment, cause: String)] {
        var moments: [(t: UInt64, kind: IntentMoment, cause: String)] = []
        for action in userActions where action.download == download.token && action.error == nil
            && action.t >= download.requestedAt
        {
            let kind: IntentMoment? = switch action.action {
            case "pause": .pause
            case "resume": .resume
            case "cancel", "delete": .removal
            default: nil
            }
            if let kind { moments.append((action.t, kind, "the user's \(action.action) at \(Wording.time(action.t))")) }
        }
        for restart in restarts {
            guard let launch = restart.launch, launch.after.failsDownloadsInFlight, restart.kill.t >= download.requestedAt,
                let state = download.state(before: restart.kill.t), state.isInFlight
            else { continue }
            // From the kill: the relaunched app may report the failure before the harness has
            // its answer to hello (the launch's stamp), and nothing of the old process comes later.
            moments.append((restart.kill.t, .loss, "the kill at \(Wording.time(restart.kill.t)), relaunched after "
                + "\(launch.after), with the download \(state)"))
        }
        return moments.sorted { $0.t < $1.t }
    }

    private enum IntentMoment { case pause, resume, removal, loss }
}

extension AppState {
    /// In flight as the guides' relaunch table means it: `downloading` or `suspended`.
    public var isInFlight: Bool {
        self == .downloading || suspensionCause != nil
    }
}
