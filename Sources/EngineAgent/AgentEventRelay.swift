import AppProtocol
import Foundation
import OfflineDownloads

/// Turns the engine's events into the protocol's: tokens by their raw value, states in
/// the protocol's words, segment URIs by their origin path, package URLs by the path of
/// their master playlist. With
/// `AgentMisbehavior.failOnOutage` it is also where the app gives up on a download
/// the engine suspends for the network.
///
/// A value type owned by the one task that drains `DownloadManager.events`; it does no
/// I/O: it answers what to write, and which download the driver must pause.
struct AgentEventRelay {
    /// What one engine event comes to.
    struct Output: Equatable {
        /// The events to write, in order.
        var events: [AppEvent] = []
        /// A download to pause in the engine (quietly: `failOnOutage` gave up on it).
        var pause: DownloadToken?
    }

    let misbehavior: AgentMisbehavior?
    /// The last state reported for each download.
    private var reported: [String: AppState] = [:]
    /// Downloads reported failed by `failOnOutage`: their state changes are no longer told.
    private var abandoned: Set<String> = []

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
            return Output(events: [.progress(download: token.rawValue, selection: selection, fraction: fraction)])
        case .licenseAcquired(let token, let expiration):
            return Output(events: [.licenseAcquired(download: token.rawValue, expiration: expiration)])
        case .licenseRenewed(let token, let expiration):
            return Output(events: [.licenseRenewed(download: token.rawValue, expiration: expiration)])
        case .licenseFailed(let token, let reason):
            return Output(events: [.licenseFailed(download: token.rawValue, reason: reason)])
        case .segmentStored(let token, let stream, let index, let bytes, let uri):
            let path = URL(string: uri)?.path ?? uri
            return Output(events: [
                .segmentStored(download: token.rawValue, stream: stream, index: index, bytes: bytes, path: path)
            ])
        case .finished(let token, let package):
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
        if misbehavior == .failOnOutage, to == .suspended(.network) {
            // The bad app: a lost network is an error. It stops the download and says
            // it failed, from the state it last showed.
            abandoned.insert(download)
            let previous = reported[download] ?? from
            reported[download] = .failed
            return Output(events: [.stateChanged(download: download, from: previous, to: .failed)], pause: token)
        }
        reported[download] = to
        return Output(events: [.stateChanged(download: download, from: from, to: to)])
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
