import AppProtocol
import BenchCore
import Foundation
import Synchronization

/// Reads the app's offline packages when the evidence calls for it and records what
/// it found (`HarnessEvent.packageRead`): as soon as the app names the package of a
/// download it reported `downloaded` (its `finished` event), and at every `inspect`
/// whose answer names one. An app that reports a download `downloaded` and names no
/// package within `packageBound` (5 s) gets a read with no master, which `integrity` fails.
///
/// One per scenario run. `observe` is called on the agent's monitor thread with every
/// event *before* the trace collector absorbs it, so no trigger of the script can see a
/// download `downloaded` before its read was counted; the read itself runs on a serial
/// queue of the watch's (`reader`), so the monitor goes on reading the app's lines while
/// a package is hashed; `isBusy` holds the script's triggers until the read is done
/// (`ScenarioContext.wait`). An inspection's read runs outside the cooperative pool and
/// the scenario's executor (`OffPool`), and the inspection waits for it. Thread-safe:
/// the state is behind a lock, and reads happen outside it.
final class PackageWatch: Sendable {
    /// How long after reporting a download `downloaded` the app has to name its package.
    let packageBound: Duration
    private let collector: TraceCollector
    private let origin: OriginCatalogView
    /// Where the packages the app names are read (synced first when the storage is remote).
    private let storage: StorageAccess
    private let state = Mutex(State())
    /// Reads the packages of downloads the app reported `downloaded`, one at a time.
    private let reader = DispatchQueue(label: "deadzone.package-watch")

    private struct State {
        /// The video of each download the harness requested.
        var videos: [String: String] = [:]
        /// Downloads reported `downloaded` whose package is not named yet, with the deadline.
        var awaiting: [String: ContinuousClock.Instant] = [:]
        /// Packages named (`finished`) before their download was reported `downloaded`.
        var named: [String: String] = [:]
        /// Reads under way.
        var reading = 0
        /// The last master playlist the app named for each download.
        var masters: [String: String] = [:]
    }

    /// A watch recording into `collector`, matching packages with `origin`.
    init(
        collector: TraceCollector, origin: OriginCatalogView, storage: StorageAccess, packageBound: Duration = .seconds(5)
    ) {
        self.collector = collector
        self.origin = origin
        self.storage = storage
        self.packageBound = packageBound
    }

    /// The harness requested `video` and the app answered `download`.
    func requested(_ download: String, video: String) {
        state.withLock { $0.videos[download] = video }
    }

    /// An event of the app, before the collector absorbs it (agent monitor thread).
    func observe(_ event: AppEvent) {
        switch event {
        case let .stateChanged(download, _, to):
            let (master, unnamed) = state.withLock { state -> (String?, Bool) in
                guard to == .downloaded else {
                    state.named[download] = nil
                    return (nil, state.awaiting.removeValue(forKey: download) != nil)
                }
                if let master = state.named.removeValue(forKey: download) {
                    state.reading += 1
                    return (master, false)
                }
                state.awaiting[download] = .now + packageBound
                return (nil, false)
            }
            if let master { readLater(download, master: master) }
            if unnamed { recordUnnamed(download, "the app reported it \(to) before naming its package") }
        case let .finished(download, package):
            let awaited = state.withLock { state -> Bool in
                guard state.awaiting.removeValue(forKey: download) != nil else {
                    state.named[download] = package
                    return false
                }
                state.reading += 1
                return true
            }
            if awaited { readLater(download, master: package) }
        default:
            break
        }
    }

    /// The app answered an `inspect`: its package, when it names one, is read now (off
    /// the pool), and the call returns once it has been.
    func inspected(_ inspection: AppInspection) async {
        guard let master = inspection.package else { return }
        await OffPool.run { self.read(inspection.download, master: master, cause: .inspected, counted: false) }
    }

    /// A counted read of a package the app reported downloaded, on `reader`.
    private func readLater(_ download: String, master: String) {
        let t = collector.now
        reader.async { self.read(download, master: master, cause: .downloaded, counted: true, at: t) }
    }

    /// Whether a read is under way or a package is still awaited (one awaited past
    /// `packageBound` is recorded as never named, and no longer counts).
    var isBusy: Bool {
        let now = ContinuousClock.now
        let (overdue, busy) = state.withLock { state in
            let overdue = state.awaiting.filter { $0.value <= now }.map(\.key).sorted()
            for download in overdue { state.awaiting[download] = nil }
            return (overdue, state.reading > 0 || !state.awaiting.isEmpty)
        }
        for download in overdue {
            recordUnnamed(download, "the app named no package within \(Wording.bound(packageBound)) of reporting it downloaded")
        }
        return busy
    }

    /// The agent was killed: a package it could no longer name is not held against it
    /// here (the next inspection reads it).
    func agentKilled() {
        let dropped = state.withLock { state in
            defer { state.awaiting = [:] }
            return state.awaiting.keys.sorted()
        }
        for download in dropped {
            collector.harness(.note("download \(download): the app was killed before naming the package of its "
                + "downloaded download; it is read at its next inspection"))
        }
    }

    /// Returns once every read asked for so far is recorded (they run on `reader`, one at a
    /// time): the scenario's trace is collected after this, so a read the app's last
    /// `finished` asked for, slowed by a busy machine, is in it rather than lost.
    func drain() async {
        let reader = reader
        await OffPool.run { reader.sync {} }
    }

    /// The agent ended cleanly (every event delivered): packages still awaited were never named.
    func agentEnded() {
        let unnamed = state.withLock { state in
            defer { state.awaiting = [:] }
            return state.awaiting.keys.sorted()
        }
        for download in unnamed { recordUnnamed(download, "the app ended without naming its package") }
    }

    /// The last master playlist the app named for `download` (nil when it named none).
    func lastPackage(of download: String) -> String? {
        state.withLock { $0.masters[download] }
    }

    /// Reads the package at `master` (a path the app named: read where `storage` maps it)
    /// and records the findings, stamped when the read was asked for (`t`, by default now).
    /// Blocks while it syncs the storage, and walks and hashes the files. Nothing is
    /// recorded when the sync failed: the scenario ends with that error instead.
    func read(_ download: String, master: String, cause: PackageReadCause, counted: Bool, at t: UInt64? = nil) {
        let t = t ?? collector.now
        defer { if counted { state.withLock { $0.reading -= 1 } } }
        let video = state.withLock { state in
            state.masters[download] = master
            return state.videos[download]
        }
        let local = storage.local(master)
        guard let contents = storage.read(for: cause.rawValue, { _ in PackageReader.read(master: local) }) else { return }
        let matcher = PackageMatcher(
            renditions: video.map(origin.renditions(ofVideo:)) ?? [], originHash: origin.sha256(of:range:))
        var found = matcher.match(contents)
        if video == nil { found.problems.append("the harness did not request download \(download): no video to match") }
        collector.harness(.packageRead(download: download, master: master, cause: cause, found: found), at: t)
    }

    private func recordUnnamed(_ download: String, _ why: String) {
        collector.harness(.packageRead(
            download: download, master: nil, cause: .downloaded, found: PackageFindings(directory: "", problems: [why])))
    }
}
