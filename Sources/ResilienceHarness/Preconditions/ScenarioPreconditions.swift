import AppProtocol
import BenchCore

/// The preconditions of the built-in scenarios, each judged from the conditioner's
/// events, the origin's log and the harness's own actions.
public enum ScenarioPreconditions {
    /// `auto-suspend-on-disconnect`: WiFi went down in `mode` while the origin was
    /// answering a request of the app through it.
    public static func outageHitATransfer(_ mode: DownMode) -> Precondition {
        Precondition("a \(mode.rawValue) outage of WiFi hit a transfer in flight") { trace, _ in
            let outages = trace.interfacesTakenDown.filter { $0.interface == .wifi && $0.mode == mode }
            for outage in outages {
                if let hit = trace.transfersInFlight(at: outage.t, through: .wifi).first {
                    return .met("WiFi down (\(mode.rawValue)) at \(Wording.time(outage.t)) while connection "
                        + "\(hit.connection) was delivering \(hit.request?.path ?? "a response") to the app")
                }
            }
            return outages.isEmpty
                ? .unmet("WiFi never went down in \(mode.rawValue) mode")
                : .unmet("WiFi went down in \(mode.rawValue) mode \(Wording.count(outages.count, "time")) (first at "
                    + "\(Wording.time(outages[0].t))) with nothing being delivered to the app through it")
        }
    }

    /// `cellular-policy`: only cellular was up while a download not allowed cellular was
    /// incomplete, and while one allowed cellular was.
    public static let cellularOnlyDuringDownloads = Precondition(
        "only cellular was up while a download not allowed it and one allowed it were incomplete"
    ) { trace, _ in
        for span in trace.interfaces.cellularOnly {
            let forbidden = trace.downloads.first { !$0.allowsCellular && trace.isIncomplete($0, at: span.start) }
            let allowed = trace.downloads.first { $0.allowsCellular && trace.isIncomplete($0, at: span.start) }
            if let forbidden, let allowed {
                return .met("\(span.startCause) at \(Wording.time(span.start)) left only cellular up with download "
                    + "\(forbidden.token) (not allowed cellular) and \(allowed.token) (allowed) incomplete")
            }
        }
        return trace.interfaces.cellularOnly.isEmpty
            ? .unmet("there was never a time with only cellular up")
            : .unmet("only cellular was up, but never while both a download not allowed cellular and one allowed it "
                + "were incomplete")
    }

    /// `crash-recovery`: at least `count` kills after which the app was told it crashed
    /// (or was killed for memory) happened while the origin was sending it bytes.
    public static func killsWithBytesInFlight(_ count: Int) -> Precondition {
        Precondition("\(count) kills while bytes were in flight, relaunched after a crash") { trace, _ in
            // The same evidence `crash-recovery` counts its kills by (`mediaBytesInFlight`).
            let counted = trace.restarts.enumerated().filter { index, restart in
                guard let launch = restart.launch, !launch.after.failsDownloadsInFlight else { return false }
                return !trace.mediaBytesInFlight(at: restart.kill.t, disk: trace.diskSnapshot(restart: index)).isEmpty
            }.map(\.element)
            let detail = "\(Wording.count(counted.count, "kill")) of \(trace.restarts.count) came while bytes of a media "
                + "response were on their way to the app and were followed by a relaunch after a crash: "
                + counted.map { Wording.time($0.kill.t) }.joined(separator: ", ")
            return counted.count >= count ? .met(detail) : .unmet(detail + " (\(count) needed)")
        }
    }

    /// `crash-recovery`: a relaunch told `kind` (force-quit, reboot while suspended) came
    /// after a kill while a download was incomplete.
    public static func relaunchInterrupting(_ kind: RelaunchKind) -> Precondition {
        Precondition("a relaunch after \(kind.rawValue) interrupted a download") { trace, _ in
            for restart in trace.restarts where restart.launch?.after == kind {
                if let download = trace.downloads.first(where: { trace.isIncomplete($0, at: restart.kill.t) }) {
                    return .met("killed at \(Wording.time(restart.kill.t)) with download \(download.token) incomplete, "
                        + "relaunched after \(kind.rawValue)")
                }
            }
            return .unmet("no kill relaunched after \(kind.rawValue) found a download incomplete")
        }
    }

    /// `license-before-background`: a license reached the app (its response ended in the
    /// origin's log) before the app went to the background, with a protected download
    /// still incomplete then.
    public static let licenseExchangeBeforeBackground = Precondition(
        "a license was exchanged before the app went to the background"
    ) { trace, _ in
        guard let background = trace.backgroundIntervals.first else {
            return .unmet("the app never went to the background")
        }
        let delivered = trace.licenseServer.issued.filter { ($0.deliveredAt ?? .max) < background.start }
        let waiting = trace.downloads.filter { $0.isProtected && trace.isIncomplete($0, at: background.start) }
        if delivered.isEmpty {
            return .unmet("no license reached the app before the background at \(Wording.time(background.start))")
        }
        if waiting.isEmpty {
            return .unmet("no protected download was incomplete when the app went to the background at "
                + "\(Wording.time(background.start))")
        }
        return .met("\(Wording.count(delivered.count, "license")) reached the app before the background at "
            + "\(Wording.time(background.start)), with \(Wording.count(waiting.count, "protected download")) incomplete")
    }

    /// `housekeeping`: a pause while the paused download was being answered.
    public static let pauseDuringATransfer = Precondition("a pause came while the paused download was transferring") {
        trace, _ in
        for action in trace.userActions where action.action == "pause" && action.error == nil {
            guard let download = trace.download(action.download) else { continue }
            let hits = trace.transfersInFlight(at: action.t).compactMap(\.request)
            if let hit = hits.first(where: { $0.video == download.video }) {
                return .met("paused download \(download.token) at \(Wording.time(action.t)) while \(hit.path) was "
                    + "being delivered to the app")
            }
        }
        return .unmet("no pause came while a response for the paused download was being delivered to the app")
    }

    /// `housekeeping`: a cancel of a download that was incomplete.
    public static let cancelOfAnIncompleteDownload = Precondition("a download was cancelled before it completed") {
        trace, _ in
        for action in trace.userActions where action.action == "cancel" && action.error == nil {
            guard let download = trace.download(action.download) else { continue }
            let completed = download.changes.contains { $0.to == .downloaded && $0.t <= action.t }
            if !completed { return .met("download \(download.token) cancelled at \(Wording.time(action.t)), incomplete") }
        }
        return .unmet("no download was cancelled before it completed")
    }

    /// `housekeeping`: a downloaded video was inspected with every interface down.
    public static let offlineInspection = Precondition("a downloaded video was inspected with every interface down") {
        trace, _ in
        for found in trace.inspections where trace.interfaces.up(at: found.t).isEmpty {
            guard let download = trace.download(found.inspection.download),
                download.changes.contains(where: { $0.to == .downloaded && $0.t <= found.t })
            else { continue }
            return .met("download \(download.token) inspected at \(Wording.time(found.t)) with no interface up")
        }
        return .unmet("no downloaded video was inspected while every interface was down")
    }

    /// `housekeeping`: a rental was inspected after the expiry the license server issued it with.
    public static let inspectionAfterARentalExpired = Precondition("a rental was inspected after it expired") {
        trace, context in
        guard let epoch = context.epochWallClock else { return .unmet("the run's wall clock is unknown") }
        let expiries: [UInt64] = trace.entries.compactMap { entry in
            guard case .license(let event) = entry.event, case .licenseIssued(_, _, _, .rental, let expiresAt?, _) = event.kind
            else { return nil }
            let seconds = Double(expiresAt) - epoch.timeIntervalSince1970
            return seconds > 0 ? UInt64(seconds * 1e9) : 0
        }
        guard let expiry = expiries.min() else { return .unmet("no rental license was issued") }
        let protected = Set(trace.downloads.filter(\.isProtected).map(\.token))
        guard let late = trace.inspections.first(where: { $0.t > expiry && protected.contains($0.inspection.download) }) else {
            return .unmet("no protected download was inspected after the rental expired at \(Wording.time(expiry))")
        }
        return .met("download \(late.inspection.download) inspected at \(Wording.time(late.t)), after the rental "
            + "expired at \(Wording.time(expiry))")
    }

    /// `situation: INCIDENT × CONTEXT`: the situation finder (the same one coverage counts
    /// by, docs/situations.md) found that pair in the trace.
    public static func situation(_ incident: Incident, _ context: SituationContext) -> Precondition {
        Precondition("the scenario created \(incident.rawValue) × \(context.rawValue) (\(incident.words), "
            + "\(context.words))") { trace, bounds in
            let situations = SituationFinder.situations(in: trace, renditions: bounds.renditions)
            if let found = situations.first(where: { $0.incident == incident && $0.context.contains(context) }) {
                return .met("at \(Wording.time(found.t)): \(found.evidence)")
            }
            let same = situations.filter { $0.incident == incident }
            guard let first = same.first else { return .unmet("\(incident.words): never") }
            let held = Set(same.flatMap(\.context)).sorted().map(\.rawValue).joined(separator: ", ")
            return .unmet("\(incident.words) \(Wording.count(same.count, "time")) (first at \(Wording.time(first.t))), "
                + "never with \(context.words); it met \(held)")
        }
    }
}
