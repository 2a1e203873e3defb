import AppProtocol
import Foundation
import OfflineDownloads

/// Turns the engine's events into the protocol's: tokens by their raw value, states in
/// the protocol's words, segment URIs by their origin path, package URLs by the path of
/// their master playlist. With
/// `AgentMisbehavior.failOnOutage` (and `failOnBodyCut`) it is also where the app gives
/// up on a download the engine suspends for the network, and with `claimsUnstoredSegments` and
/// `claimsDownloadedEarly` where the app lies about what it stored
/// (`AgentEventRelay+Claims.swift`).
///
/// A value type owned by the one task that drains `DownloadManager.events`; it does no
/// I/O: it answers what to write, and which download the driver must pause. What the
/// lying variants need of a download's plan and of the engine, the driver tells it.
struct AgentEventRelay {
    /// What one engine event comes to.
    struct Output: Equatable {
        /// The events to write, in order.
        var events: [AppEvent] = []
        /// A download to pause in the engine (quietly: `failOnOutage` or `failOnBodyCut`
        /// gave up on it).
        var pause: DownloadToken?
    }

    let misbehavior: AgentMisbehavior?
    /// Whether the path the app was last given offers an interface (`failOnBodyCut`); the
    /// driver sets it before each event.
    var pathOffersInterface = true
    /// The last state reported for each download.
    private var reported: [String: AppState] = [:]
    /// Downloads reported failed by `failOnOutage` or `failOnBodyCut`: their state changes
    /// are no longer told.
    private var abandoned: Set<String> = []
    /// What the driver told of each download's plan (the lying variants only).
    private(set) var plans: [String: PlanFacts] = [:]
    /// Downloads `claimsDownloadedEarly` reported downloaded before the engine did.
    private(set) var claimedEarly: Set<String> = []
    /// Downloads whose engine `finished` is not told (it was, early).
    private var quietFinish: Set<String> = []
    /// The media selections each download reported progress for.
    private var selections: [String: Set<String>] = [:]

    init(misbehavior: AgentMisbehavior?) {
        self.misbehavior = misbehavior
    }

    /// What `event` becomes.
    mutating func relay(_ event: EngineEvent) -> Output {
        switch event {
        case .stateChanged(let token, let from, let to):
            return stateChanged(token, from: from, to: to)
        case .progress(let token, let selection, let fraction):
            // Key files are a stream of the engine's plan, not a media selection: they come
            // first and whole, and the protocol's progress is per media selection.
            guard selection != DownloadPlan.keyStream else { return Output() }
            // A download claimed done early was told at 100 %: the engine's own later
            // fractions are not told (they would fall from 1).
            guard !claimedEarly.contains(token.rawValue), !quietFinish.contains(token.rawValue) else { return Output() }
            selections[token.rawValue, default: []].insert(selection)
            return Output(events: [.progress(download: token.rawValue, selection: selection, fraction: fraction)])
        case .licenseAcquired(let token, let expiration):
            return Output(events: [.licenseAcquired(download: token.rawValue, expiration: expiration)])
        case .licenseRenewed(let token, let expiration):
            return Output(events: [.licenseRenewed(download: token.rawValue, expiration: expiration)])
        case .licenseFailed(let token, let reason):
            return Output(events: [.licenseFailed(download: token.rawValue, reason: reason)])
        case .segmentStored(let token, let stream, let index, let bytes, let uri):
            // An init section (EXT-X-MAP: the engine numbers them from -1 down) is no
            // media segment: the protocol's `segmentStored` counts a playlist's segments
            // from 0, and the harness reads init sections from the package.
            guard index >= 0 else { return Output() }
            let path = URL(string: uri)?.path ?? uri
            let stored = AppEvent.segmentStored(download: token.rawValue, stream: stream, index: index, bytes: bytes, path: path)
            return Output(events: [stored] + unstoredClaim(beside: stored))
        case .finished(let token, let package):
            guard quietFinish.remove(token.rawValue) == nil else { return Output() }
            let master = package.appendingPathComponent(OfflinePackage.masterPlaylistPath).path
            return Output(events: [.finished(download: token.rawValue, package: master)])
        case .evicted(let token, _):
            return Output(events: [.evicted(download: token.rawValue)])
        case .removed:
            // The protocol has no end-time event: the harness stamps the state change
            // to notDownloaded with its own clock.
            return Output()
        case .error(let token, let message):
            return Output(events: [.error(download: token?.rawValue, message: message)])
        }
    }

    private mutating func stateChanged(_ token: DownloadToken, from engineFrom: DownloadState, to engineTo: DownloadState)
        -> Output
    {
        let download = token.rawValue
        let from = AppState(engineFrom)
        let to = AppState(engineTo)
        guard !abandoned.contains(download) else { return Output() }
        if claimedEarly.contains(download) { return afterEarlyClaim(download, to: to) }
        if misbehavior == .stuckAfterHandoff, to == .suspended(.cellularNotAllowed) {
            // The bad app: the download hangs where it was, shown downloading, stopped for good.
            abandoned.insert(download)
            return Output(pause: token)
        }
        if misbehavior == .failOnOutage, to == .suspended(.network) {
            // The bad app: a lost network is an error. It stops the download and says
            // it failed, from the state it last showed.
            return giveUp(token, from: from)
        }
        if misbehavior == .failOnBodyCut, to == .suspended(.network), from == .downloading, pathOffersInterface {
            // The bad app: a transfer that broke with an interface up (a cut body, a
            // stall) is an error too.
            return giveUp(token, from: from)
        }
        reported[download] = to
        return Output(events: [.stateChanged(download: download, from: from, to: to)])
    }

    /// `failOnOutage`, `failOnBodyCut`: the download is reported failed from the state it
    /// last showed, stopped in the engine, and its later changes are not told.
    private mutating func giveUp(_ token: DownloadToken, from: AppState) -> Output {
        let download = token.rawValue
        abandoned.insert(download)
        let previous = reported[download] ?? from
        reported[download] = .failed
        return Output(events: [.stateChanged(download: download, from: previous, to: .failed)], pause: token)
    }

    /// The engine's change of a download `claimsDownloadedEarly` already reported
    /// downloaded: its own `downloaded` (and the `finished` after it) is not told, nor
    /// anything before it; a removal is told from `downloaded`, so the chain stays legal.
    private mutating func afterEarlyClaim(_ download: String, to: AppState) -> Output {
        switch to {
        case .downloaded:
            claimedEarly.remove(download)
            quietFinish.insert(download)
            return Output()
        case .notDownloaded:
            claimedEarly.remove(download)
            reported[download] = .notDownloaded
            return Output(events: [.stateChanged(download: download, from: .downloaded, to: .notDownloaded)])
        default:
            return Output()
        }
    }

    /// The early claim of `download`: progress 1 for each of its selections, `stateChanged`
    /// to downloaded and `finished`, once. A whole lie, as an app that shows a download done
    /// shows it at 100 %: only the package the harness reads can tell (`integrity`), never
    /// the app's own progress (which would otherwise end short of 1 whenever the engine's
    /// last progress report fell after the claim).
    mutating func markClaimedEarly(_ download: String, package: String) -> [AppEvent] {
        let from = reported[download] ?? .downloading
        claimedEarly.insert(download)
        reported[download] = .downloaded
        let full = (selections[download] ?? []).sorted().map { AppEvent.progress(download: download, selection: $0, fraction: 1) }
        return full + [.stateChanged(download: download, from: from, to: .downloaded), .finished(download: download, package: package)]
    }

    /// The state last reported for `download`, if any.
    func reportedState(_ download: String) -> AppState? {
        reported[download]
    }

    /// Records what the driver read of `download`'s plan.
    mutating func learn(_ download: String, _ facts: PlanFacts) {
        plans[download] = facts
    }
}

extension AppState {
    /// The protocol's name for an engine state.
    init(_ state: DownloadState) {
        switch state {
        case .notDownloaded: self = .notDownloaded
        case .requested: self = .requested
        case .licensePreloaded: self = .licensePreloaded
        case .downloading: self = .downloading
        case .suspended(let reason): self = .suspended(SuspensionCause(reason))
        case .downloaded: self = .downloaded
        case .canceling: self = .canceling
        case .failed: self = .failed
        }
    }
}

extension SuspensionCause {
    /// The protocol's name for an engine suspension reason.
    init(_ reason: SuspensionReason) {
        switch reason {
        case .user: self = .user
        case .network: self = .network
        case .cellularNotAllowed: self = .cellularNotAllowed
        case .storage: self = .storage
        case .awaitingForeground: self = .awaitingForeground
        }
    }
}
