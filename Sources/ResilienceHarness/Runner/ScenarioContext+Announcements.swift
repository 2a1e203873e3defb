import AppProtocol
import BenchCore
import Foundation
import LinkConditioner

/// What an outside test announces in a session (`bench session`): the test drives an app
/// the harness neither launches nor speaks to, and only the test knows what it made the
/// app and the user do. Each announcement is recorded as the harness's own action would
/// be, stamped as it arrives: a download requested (with its cellular setting), a user's
/// pause, resume, cancel or delete, a kill (the harness then reads the app's storage
/// itself, as at a kill it makes), a launch and how the last process ended, the app's
/// lifecycle. The judge takes it as the test's word, and checks the rest against the world.
extension ScenarioContext {
    /// The trace's time now (ns since its epoch): an announcement is stamped with it as it
    /// arrives, before it waits for this actor.
    public nonisolated var now: UInt64 { collector.now }

    /// The scenario's conditioner: its interfaces, for a driver outside the script.
    public nonisolated var conditioner: LinkConditioner { network.conditioner }

    /// The directory the harness reads as the app's storage at an announced kill: the app
    /// under test keeps its downloads there.
    public nonisolated var storageDirectory: String { storage.local }

    /// Takes an interface down or up, as the script's own network step would (recorded
    /// as the harness's `interfaceSet`); callable from any thread.
    public nonisolated func driveInterface(_ kind: InterfaceKind, _ state: InterfaceState, pathUpdate: PathUpdatePolicy?) {
        switch state {
        case .up: collector.harness(.interfaceSet(kind, up: true, mode: nil))
        case .down(let mode): collector.harness(.interfaceSet(kind, up: false, mode: mode))
        }
        network.conditioner.setState(kind, state, pathUpdate: pathUpdate)
    }

    /// The master playlist's path of each video the origin serves, by id.
    public nonisolated var videoPaths: [String: String] {
        var paths: [String: String] = [:]
        let ids = network.catalog.videos.map(\.id) + network.origin.store.recorded.streams.map(\.video.id)
        for id in ids {
            guard let (document, _) = network.document(id), let url = document.sources.first?.url else { continue }
            paths[id] = URL(string: url)?.path ?? url
        }
        return paths
    }

    /// A download of `video` the test made the app start; returns the token the trace knows it by.
    /// - Throws: `ScenarioError.script` for a video the origin does not serve.
    public func announceRequest(_ video: String, allowsCellular: Bool, at t: UInt64) throws -> String {
        guard let (document, _) = network.document(video) else {
            throw ScenarioError.script("no video \(video): the origin serves \(videoPaths.keys.sorted().joined(separator: ", "))")
        }
        diskWitness.requested(video)
        let token = "announced-\(videoOf.count + 1)-\(video)"
        videoOf[token] = video
        let protected = document.sources.contains { $0.keySystems?.contains { $0.licenseURL != nil } ?? false }
        collector.harness(.downloadRequested(
            video: video, download: token, allowsCellular: allowsCellular, protected: protected, error: nil), at: t)
        recordLicenseKey(of: document, for: token)
        return token
    }

    /// A user's action on an announced download.
    /// - Throws: `ScenarioError.script` for a token never announced.
    public func announceUser(_ action: UserAction, _ token: String, at t: UInt64) throws {
        guard videoOf[token] != nil else {
            throw ScenarioError.script("no download \(token) was announced (announced: \(videoOf.keys.sorted().joined(separator: ", ")))")
        }
        collector.harness(.userAction(action: action.rawValue, download: token, error: nil), at: t)
        switch action {
        case .cancel, .delete: removed.insert(token)
        case .pause: paused.insert(token)
        case .resume: paused.remove(token)
        }
    }

    /// The test killed the app (`reason`: `crash`, `userForceQuit`…): recorded, then the
    /// harness reads the storage directory as at a kill it makes itself.
    ///
    /// The announcement comes after the kill; the world saw the kill earlier, as the end of
    /// the app's connections (a SIGKILL closes them all at once; the app is the only client
    /// of a session's interfaces). So the kill is placed just before the last connection
    /// end the conditioner or the origin saw up to the announcement (`killInstant`), when
    /// there is one, and never before the harness's entry before it (the announcement the
    /// test made before the kill): a connection still open at the kill is then open at its
    /// stamp, and bytes it had on their way count. With no connection ended since, the app
    /// was idle on the network: the announcement's arrival it is.
    public func announceKill(reason: String, pid: Int32?, at arrival: UInt64) async {
        // The origin's records join the trace at the scenario's end; its log so far is read here.
        let served = network.origin.requestLog.map {
            TraceEntry.origin($0, epoch: collector.epoch, interfaces: network.interfaces)
        }
        let killedAt = Self.killInstant(in: collector.entries + served, arrival: arrival)
        let pid = pid ?? Int32(announcedLaunches)
        collector.harness(.killed(pid: pid, reason: reason), at: killedAt)
        await recordDisk(pid: pid, killedAt: killedAt)
    }

    /// When an announced kill happened (`announceKill`), from the entries up to its `arrival`:
    /// just before the last connection end the conditioner saw, or before the origin's own
    /// sight of that end, when it came first: a response it was sending down that connection
    /// logged cut (not completed). (The conditioner closes its upstream side before it logs
    /// the close, and flushes its byte counts after, so the origin often logs the cut first;
    /// a kill placed after it would find that response already over, not in flight. A cut
    /// response cannot leave its connection open: it ends it.) Never before the harness's
    /// entry before it.
    static func killInstant(in entries: [TraceEntry], arrival: UInt64) -> UInt64 {
        var lastClose: (t: UInt64, connection: UInt64)?
        var floor: UInt64 = 0
        var peers: [UInt64: String] = [:]
        for entry in entries where entry.t <= arrival {
            switch entry.event {
            case let .conditioner(.connectionAccepted(id, _, peer)): peers[id.rawValue] = peer
            case let .conditioner(.connectionClosed(id, _, _, _)) where entry.t >= (lastClose?.t ?? 0):
                lastClose = (entry.t, id.rawValue)
            case .harness: floor = max(floor, entry.t + 1)
            default: break
            }
        }
        guard let lastClose, lastClose.t > 0, lastClose.t - 1 >= floor else { return arrival }
        var instant = min(arrival, lastClose.t - 1)
        guard let peer = peers[lastClose.connection] else { return instant }
        for entry in entries where entry.t >= floor && entry.t <= lastClose.t {
            guard case .origin(let record) = entry.event, record.proxySource == peer, !record.completed, entry.t > 0 else { continue }
            instant = min(instant, max(floor, entry.t - 1))
        }
        return instant
    }

    /// The test launched the app, telling it (or not) how its last process ended.
    public func announceLaunch(after termination: RelaunchKind, pid: Int32?, at t: UInt64) {
        announcedLaunches += 1
        collector.agentRelaunched()
        collector.harness(.launched(pid: pid ?? Int32(announcedLaunches), after: termination), at: t)
    }

    /// The app went to the background or came back at `t` (the announcement's arrival); the
    /// license server is told now, as for a scenario's own.
    public func announceLifecycle(foreground: Bool, at t: UInt64) {
        recordLifecycle(foreground, at: t)
    }
}
