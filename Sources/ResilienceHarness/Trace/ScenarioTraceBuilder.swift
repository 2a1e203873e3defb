import AppProtocol
import BenchCore
import FixtureOrigin
import Foundation
import LinkConditioner

/// Collects the facts of a time-ordered trace in one pass, for `ScenarioTrace.init`.
struct ScenarioTraceBuilder {
    /// The video of each path a recorded stream serves (see `ScenarioTrace.init`).
    var recordedPaths: [String: String] = [:]
    var requests: [TracedDownload] = []
    var stateChanges: [String: [TracedStateChange]] = [:]
    var interfaceEvents: [InterfaceTimeline.Event] = []
    /// `(t, foreground)` in order.
    var lifecycle: [(t: UInt64, foreground: Bool)] = []
    var kills: [TracedKill] = []
    var launches: [TracedLaunch] = []
    var agentLaunches: [TracedLaunch] = []
    var originRequests: [TracedOriginRequest] = []
    var licenseRequests: [TracedLicenseRequest] = []
    var licenseLog = LicenseServerLog.Builder()
    var licensesAcquired: [TracedDownloadNote] = []
    var licenseFailures: [TracedDownloadNote] = []
    var progress: [TracedProgress] = []
    var inspections: [TracedInspection] = []
    var segmentsStored: [TracedSegment] = []
    var partialSegments: [TracedPartialSegment] = []
    var diskSnapshots: [TracedDiskSnapshot] = []
    var userActions: [TracedUserAction] = []
    var notes: [TracedNote] = []
    var linkBytes: [TracedLinkBytes] = []
    var connectionAttempts: [TracedConnectionAttempt] = []
    /// An accepted connection's index in `connectionAttempts`, to attach its reset.
    private var attemptIndex: [ConnectionID: Int] = [:]
    var packageReads: [TracedPackageRead] = []
    var leftovers: [TracedLeftovers] = []
    var pausedDisks: [TracedPausedDisk] = []
    /// The app's connections through the conditioner by peer address, each with when it
    /// was accepted and when the app began sending on it (`appSent`), to stamp origin
    /// requests with `sentAt`.
    private var appConnections: [String: [AppConnectionSends]] = [:]
    private var peerOf: [ConnectionID: String] = [:]

    mutating func add(_ entry: TraceEntry) {
        switch entry.event {
        case .conditioner(let kind): add(kind, at: entry.t)
        case .origin(let record): add(record, at: entry.t)
        case .license(let event): add(event, at: entry.t)
        case .agent(let event): add(event, at: entry.t)
        case .harness(let event): add(event, at: entry.t)
        }
    }

    private mutating func add(_ kind: ConditionerEvent.Kind, at t: UInt64) {
        switch kind {
        case .interfaceUp(let interface):
            interfaceEvents.append(.link(t: t, interface: interface, up: true, mode: nil))
        case let .interfaceDown(interface, mode):
            interfaceEvents.append(.link(t: t, interface: interface, up: false, mode: mode))
        case let .bytesForwarded(connection, interface, direction, bytes, _):
            linkBytes.append(TracedLinkBytes(
                t: t, connection: connection, interface: interface, direction: direction, bytes: bytes))
        case let .appSent(connection, _, _):
            guard let peer = peerOf[connection], let index = appConnections[peer]?.lastIndex(where: { $0.id == connection })
            else { return }
            appConnections[peer]?[index].sends.append(t)
        case let .connectionAccepted(connection, interface, peer):
            peerOf[connection] = peer
            appConnections[peer, default: []].append(AppConnectionSends(id: connection, accepted: t))
            attemptIndex[connection] = connectionAttempts.count
            connectionAttempts.append(TracedConnectionAttempt(
                t: t, interface: interface, outcome: .accepted, connection: connection, peer: peer, resetAt: nil))
        case let .connectionRefused(interface, peer):
            connectionAttempts.append(TracedConnectionAttempt(
                t: t, interface: interface, outcome: .refused, connection: nil, peer: peer, resetAt: nil))
        case .connectionReset(let connection, _, _):
            if let index = attemptIndex[connection], connectionAttempts[index].resetAt == nil {
                connectionAttempts[index].resetAt = t
            }
        default: break
        }
    }

    private mutating func add(_ record: OriginRequestRecord, at t: UInt64) {
        let path = OriginPath.normalized(record.path)
        let start = t >= record.durationNanoseconds ? t - record.durationNanoseconds : 0
        originRequests.append(TracedOriginRequest(
            t: t, start: start, record: record, path: path, video: OriginPath.video(of: path) ?? recordedPaths[path],
            sentAt: sentAt(of: record, start: start)))
    }

    /// When the conditioner read the request the origin began at `start`: on the app
    /// connection its PROXY header names (the latest accepted by then, as ports are
    /// reused), the last `appSent` at or before `start`.
    private func sentAt(of record: OriginRequestRecord, start: UInt64) -> UInt64? {
        guard let peer = record.proxySource,
            let connection = appConnections[peer]?.last(where: { $0.accepted <= start })
        else { return nil }
        return connection.sends.last { $0 <= start }
    }

    private mutating func add(_ event: LicenseEvent, at t: UInt64) {
        licenseLog.add(event, at: t)
        guard case let .requestReceived(endpoint, assetID, _, _, _, background) = event.kind else { return }
        licenseRequests.append(TracedLicenseRequest(t: t, endpoint: endpoint, assetID: assetID, appInBackground: background))
    }

    private mutating func add(_ event: AppEvent, at t: UInt64) {
        switch event {
        case let .launched(pid, after):
            agentLaunches.append(TracedLaunch(t: t, pid: pid, after: after))
        case let .stateChanged(download, from, to):
            stateChanges[download, default: []].append(TracedStateChange(t: t, from: from, to: to))
        case let .progress(download, selection, fraction):
            progress.append(TracedProgress(t: t, download: download, selection: selection, fraction: fraction))
        case let .segmentStored(download, stream, index, bytes, path):
            segmentsStored.append(TracedSegment(
                t: t, download: download, stream: stream, index: index, bytes: bytes, path: OriginPath.normalized(path)))
        case let .licenseAcquired(download, expiration):
            licensesAcquired.append(TracedDownloadNote(t: t, download: download, detail: "expires \(expiration)"))
        case let .licenseFailed(download, reason):
            licenseFailures.append(TracedDownloadNote(t: t, download: download, detail: reason))
        case .partialSegmentsFound(let found):
            partialSegments += found.map {
                TracedPartialSegment(
                    t: t, download: $0.download, stream: $0.stream, index: $0.index,
                    path: OriginPath.normalized($0.path), bytes: $0.bytes, byteRange: $0.byteRange)
            }
        case .licenseRenewed, .finished, .evicted, .error:
            break
        }
    }

    private mutating func add(_ event: HarnessEvent, at t: UInt64) {
        switch event {
        case let .downloadRequested(video, download, allowsCellular, protected, _):
            guard let download else { return }
            requests.append(TracedDownload(
                token: download, video: video, allowsCellular: allowsCellular, isProtected: protected,
                requestedAt: t, changes: []))
        case let .licenseKeyOf(download, assetID, keyID, licenseURL):
            guard let index = requests.lastIndex(where: { $0.token == download }) else { return }
            requests[index].licenseKey = CatalogLicenseKey(assetID: assetID, keyID: keyID, licenseURL: licenseURL)
        case let .interfaceSet(interface, up, mode):
            interfaceEvents.append(.link(t: t, interface: interface, up: up, mode: mode))
        case .pathGiven(let interfaces):
            interfaceEvents.append(.path(t: t, interfaces: interfaces))
        case .lifecycle(let foreground):
            lifecycle.append((t, foreground))
        case let .killed(pid, reason):
            kills.append(TracedKill(t: t, pid: pid, reason: reason))
        case let .launched(pid, after):
            launches.append(TracedLaunch(t: t, pid: pid, after: after))
        case .helloAnswered:
            if let last = launches.indices.last, launches[last].answered == nil, t >= launches[last].t {
                launches[last].answered = t
            }
        case let .userAction(action, download, error):
            userActions.append(TracedUserAction(t: t, action: action, download: download, error: error))
        case .note(let text):
            notes.append(TracedNote(t: t, text: text))
        case .inspected(let inspection):
            inspections.append(TracedInspection(t: t, inspection: inspection))
        case let .packageRead(download, master, cause, found):
            packageReads.append(TracedPackageRead(t: t, download: download, master: master, cause: cause, found: found))
        case let .leftAfterRemoval(download, stored, partial, packageFiles):
            leftovers.append(TracedLeftovers(
                t: t, download: download, stored: stored, partial: partial, packageFiles: packageFiles))
        case let .diskWhilePaused(download, stored, partial):
            pausedDisks.append(TracedPausedDisk(
                t: t, download: download, stored: Set(stored.map(OriginPath.normalized)), partial: partial))
        case let .diskAtKill(pid, stored, partial, unknown):
            diskSnapshots.append(TracedDiskSnapshot(
                t: t, pid: pid, stored: Set(stored.map(MediaResourceKey.normalized)),
                partial: Dictionary(partial.map { (MediaResourceKey.normalized($0.key), $0.value) }) { max($0, $1) },
                unknown: unknown))
        case .scenarioStarted, .scenarioFinished, .licenseServerBackground, .preparingForBackground,
            .preparedForBackground, .pathAcknowledged, .allowsCellularSet, .agentExited, .clientLaunched, .clientExited, .originFaultBegan, .originFaultEnded,
            .storageSynced:
            break
        }
    }

    /// From each `lifecycle(foreground: false)` to the next `lifecycle(foreground: true)`.
    func backgroundIntervals() -> [TraceInterval] {
        var result: [TraceInterval] = []
        var open: TraceInterval?
        for change in lifecycle {
            if !change.foreground, open == nil {
                open = TraceInterval(start: change.t, end: nil, startCause: "app to background", endCause: nil)
            } else if change.foreground, var span = open {
                span.end = change.t
                span.endCause = "app to foreground"
                result.append(span)
                open = nil
            }
        }
        if let open { result.append(open) }
        return result
    }

    /// Each kill with the first harness launch after it and before the next kill.
    func restarts() -> [TracedRestart] {
        kills.enumerated().map { index, kill in
            let next = index + 1 < kills.count ? kills[index + 1].t : UInt64.max
            return TracedRestart(kill: kill, launch: launches.first { $0.t >= kill.t && $0.t < next })
        }
    }
}

/// One app connection through the conditioner, for `ScenarioTraceBuilder.sentAt`.
private struct AppConnectionSends {
    var id: ConnectionID
    var accepted: UInt64
    /// Each `appSent` on it, in time order.
    var sends: [UInt64] = []
}
