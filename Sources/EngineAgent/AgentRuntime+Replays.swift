import AppProtocol
import BenchCore
import Foundation
import OfflineDownloads

/// What the replayed bugs (`wifiReturnUnnoticed`, `duplicateAfterRelaunch`,
/// `completeAfterRelaunch`, `downloadingWhileOffline`) and the seams' misbehaviours
/// (`downloadingOnOfflineResume`) remember between the command loop
/// and the relay task. A value; `AgentRuntime` keeps it behind a lock.
struct AgentMemory: Sendable {
    /// The app was given a path with WiFi (`wifiReturnUnnoticed`).
    var sawWifi = false
    /// A path without WiFi followed one with it: WiFi is never handed on again.
    var lostWifi = false
    /// The last path given had no interface at all.
    var toldOffline = false
    /// Downloads whose events the app does not tell (`duplicateAfterRelaunch`'s copies).
    var hidden: Set<String> = []
    /// Downloads `pauseOnlyTheList` reported paused before the engine paused them: their
    /// state changes are not told until the engine's own `→ suspended(user)`.
    var pausedEarly: Set<String> = []
    /// Downloads `downloadingOnOfflineResume` showed downloading on a resume with no
    /// interface: the engine's own change out of `suspended(user)` is told from there.
    var resumedOffline: Set<String> = []

    /// The path the engine gets when the app is given `path` (already bent by the
    /// misbehaviour's `pathForEngine`), remembering what the replays need.
    mutating func pathGiven(_ path: NetworkPath, misbehavior: AgentMisbehavior?) -> NetworkPath {
        toldOffline = path.interfaces.isEmpty
        guard misbehavior == .wifiReturnUnnoticed else { return path }
        let hasWifi = path.interfaces.contains { $0.kind == .wifi }
        if hasWifi, !lostWifi {
            sawWifi = true
            return path
        }
        if !hasWifi, sawWifi { lostWifi = true }
        guard lostWifi else { return path }
        var unnoticed = path
        unnoticed.interfaces.removeAll { $0.kind == .wifi }
        return unnoticed
    }
}

extension AgentRuntime {
    /// The path handed to the engine when the harness gives `path`.
    func engineView(of path: NetworkPath) -> NetworkPath {
        let bent = options.misbehavior?.pathForEngine(path) ?? path
        return memory.withLock { $0.pathGiven(bent, misbehavior: options.misbehavior) }
    }

    /// Whether the app keeps `event` to itself: it concerns a hidden copy, or it is a
    /// state change of a download reported paused early (the last of which, the engine's
    /// own pause, ends the silence).
    func hides(_ event: EngineEvent) -> Bool {
        guard let token = event.download else { return false }
        return memory.withLock { memory in
            if memory.hidden.contains(token.rawValue) { return true }
            guard case .stateChanged(_, _, let to) = event, memory.pausedEarly.contains(token.rawValue) else { return false }
            if to == .suspended(.user) { memory.pausedEarly.remove(token.rawValue) }
            return true
        }
    }

    /// `downloadingWhileOffline`, right after the app answered a path with no interface:
    /// each download it last showed suspended for the network, shown downloading again,
    /// then suspended (whichever the engine saw first, the reset or the path). Checked and
    /// written under the output's lock, so that the engine's own events cannot come in
    /// between and the claim always starts from the state the harness last read.
    func writeOfflineClaims(after command: AppCommand) {
        guard options.misbehavior == .downloadingWhileOffline, case .setPath(let path) = command,
            path.interfaces.isEmpty
        else { return }
        output.events(forDownloadsIn: .suspended(.network), Self.offlineClaims)
    }

    /// `downloadingWhileOffline`, right after the engine's own suspension of a download for
    /// the network was written: the same claims, if the app was told it is offline by
    /// then. Whether it was is read under the output's lock, after that line: the path
    /// reply's claims (`writeOfflineClaims(after:)`) check under the same lock, so one of
    /// the two always sees both the empty path and the suspension, whichever came first.
    func writeOfflineClaims(afterRelaying event: EngineEvent) {
        guard options.misbehavior == .downloadingWhileOffline,
            case .stateChanged(let token, _, .suspended(.network)) = event
        else { return }
        output.events(
            forDownloadsIn: .suspended(.network), only: [token.rawValue], when: { memory.withLock { $0.toldOffline } },
            Self.offlineClaims)
    }

    /// A download suspended for the network, shown downloading, then suspended again.
    static func offlineClaims(_ download: String) -> [AppEvent] {
        [
            .stateChanged(download: download, from: .suspended(.network), to: .downloading),
            .stateChanged(download: download, from: .downloading, to: .suspended(.network)),
        ]
    }

    /// `cellularSettingPerBatch`: the cellular setting of the request that made
    /// `requested` (its own, else the app's) given to every unfinished download.
    func applyToTheBatch(allowsCellular: Bool?, from requested: DownloadToken) async {
        let allowed: Bool
        if let allowsCellular { allowed = allowsCellular } else { allowed = await engine.allowsCellular }
        for status in await engine.statuses where status.token != requested
            && ([.requested, .downloading].contains(status.state) || status.state.suspensionReason != nil)
        {
            try? await engine.setAllowsCellular(allowed, for: status.token)
        }
    }

    /// `downloadingOnOfflineResume`, on the user's resume of `download`: when the last path
    /// had no interface, shows it downloading at once (from `suspended(user)`, as the
    /// harness last read it), before the engine has settled it.
    func claimDownloadingIfOffline(_ download: String) {
        let offline = memory.withLock { memory -> Bool in
            guard memory.toldOffline else { return false }
            memory.resumedOffline.insert(download)
            return true
        }
        guard offline else { return }
        output.event(.stateChanged(download: download, from: .suspended(.user), to: .downloading))
    }

    /// `downloadingOnOfflineResume`: the engine's change of a download shown downloading
    /// on an offline resume, told from `downloading` (the state the app showed), once.
    func retoldAfterOfflineResume(_ events: [AppEvent]) -> [AppEvent] {
        guard options.misbehavior == .downloadingOnOfflineResume else { return events }
        return events.compactMap { event in
            guard case let .stateChanged(download, .suspended(.user), to) = event,
                memory.withLock({ $0.resumedOffline.remove(download) }) != nil
            else { return event }
            return to == .downloading ? nil : .stateChanged(download: download, from: .downloading, to: to)
        }
    }

    /// `pauseOnlyTheList`: says the download is paused now, and pauses the engine's
    /// transfer of it 3 s later.
    func pauseOnlyTheList(_ download: String) {
        memory.withLock { _ = $0.pausedEarly.insert(download) }
        output.event(.stateChanged(download: download, from: .downloading, to: .suspended(.user)))
        let engine = engine
        Task {
            try? await Task.sleep(for: .seconds(3))
            do { try await engine.pause(DownloadToken(download)) } catch {
                AgentLog.write("pause-only-the-list: cannot pause \(download) after all: \(error)")
            }
        }
    }

    /// What a replayed bug adds after `event` was relayed: `completeAfterRelaunch`'s
    /// report of a download taken up again as downloaded (`downloadingWhileOffline`'s
    /// claims are written by `writeOfflineClaims(afterRelaying:)`, under the output's lock).
    func replayClaims(_ relay: inout AgentEventRelay, after event: EngineEvent) -> [AppEvent] {
        guard case .stateChanged(let token, _, let to) = event else { return [] }
        let download = token.rawValue
        switch options.misbehavior {
        case .completeAfterRelaunch:
            guard [.crash, .memoryPressure].contains(after), to == .downloading,
                relay.reportedState(download) == .downloading, !relay.claimedEarly.contains(download),
                let directory = inspector.packageDirectory(of: download)
            else { return [] }
            return relay.markClaimedEarly(download, package: directory + "/" + OfflinePackage.masterPlaylistPath)
        default:
            return []
        }
    }
}

extension AgentMisbehavior {
    /// `unpauseAfterRelaunch`, `unpauseOnPathReturn`: resumes every download the engine
    /// holds paused by the user. Returns how many.
    static func resumePaused(in engine: DownloadManager) async -> Int {
        var resumed = 0
        for status in await engine.statuses where status.state == .suspended(.user) {
            do {
                try await engine.resume(status.token)
                resumed += 1
            } catch {
                AgentLog.write("cannot resume \(status.token): \(error)")
            }
        }
        return resumed
    }

    /// `duplicateAfterRelaunch`, once the engine has started after a crash: requests a
    /// second download of every video the engine holds unfinished, from the catalog entry
    /// kept in its package (`video.json`), with the same cellular setting as the app's.
    /// Returns the copies' tokens, whose events the app hides.
    static func requestDuplicates(of engine: DownloadManager, storageDirectory: String) async -> Set<String> {
        var copies: Set<String> = []
        for status in await engine.statuses
        where [.requested, .downloading].contains(status.state) || status.state.suspensionReason != nil {
            let file = storageDirectory + "/packages/" + status.token.rawValue + "/video.json"
            guard let data = FileManager.default.contents(atPath: file),
                let stored = try? JSONDecoder().decode(KeptVideo.self, from: data),
                let catalogURL = URL(string: stored.catalogURL),
                let copy = try? await engine.requestDownload(
                    video: CatalogVideo(document: stored.document, catalogURL: catalogURL))
            else { continue }
            copies.insert(copy.rawValue)
        }
        return copies
    }

    /// The catalog entry the engine keeps beside a package (`video.json`).
    private struct KeptVideo: Decodable {
        var document: VideoDocument
        var catalogURL: String
    }
}

extension EngineEvent {
    /// The download the event is about, if any.
    var download: DownloadToken? {
        switch self {
        case .stateChanged(let token, _, _), .progress(let token, _, _), .licenseAcquired(let token, _),
            .licenseRenewed(let token, _), .licenseFailed(let token, _), .segmentStored(let token, _, _, _, _),
            .finished(let token, _), .evicted(let token, _), .removed(let token, _):
            token
        case .error(let token, _):
            token
        }
    }
}
