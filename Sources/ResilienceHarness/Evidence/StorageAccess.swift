import BenchCore
import Foundation
import Synchronization

/// How the harness reads the app's storage, the evidence for crash recovery, pauses,
/// cleanup and integrity: in place, or, for an app whose storage is not a local directory
/// (`--storage-sync`), from a local copy the sync command makes before each read.
///
/// The app names paths as it sees them (its hello's `storage`, `app`; its packages);
/// `local(_:)` maps them to where the harness reads. With a sync command every read runs
/// under one lock: the local copy is emptied, the command fills it (`sh -c`, its own
/// process group, at most `syncTimeout`), and only then is it read, so a read never sees
/// a copy another read is replacing, nor files the app has deleted since an earlier copy.
/// Each sync is recorded (`HarnessEvent.storageSynced`); a failed one skips its read and
/// is kept as `failure`, which ends the scenario with an error (`ScenarioRun`).
/// `read` blocks while the command runs and the files are hashed: call it off the pool.
final class StorageAccess: Sendable {
    /// The directory the harness reads (and removes when the scenario ends).
    let local: String
    /// The same storage as the app sees it (hello's `storage`); `local` when it is local.
    let app: String
    private let sync: Sync?
    private let lock = Mutex(())
    private let failed = Mutex<String?>(nil)

    /// How long a sync command may run before it is killed and its read given up.
    static let syncTimeout = Duration.seconds(60)

    private struct Sync: Sendable {
        var command: String
        var environment: [String: String]
        var collector: TraceCollector
    }

    /// Storage the app keeps at `local`, read in place.
    init(local: String) {
        self.local = local
        self.app = local
        sync = nil
    }

    /// Storage the app keeps at `app` (its path), copied into `local` by `command` before
    /// each read; `environment` is given to the command with `DEADZONE_SYNC_TO` and
    /// `DEADZONE_READ`, and each sync is recorded into `collector`.
    init(local: String, app: String, command: String, environment: [String: String], collector: TraceCollector) {
        self.local = local
        self.app = app
        sync = Sync(command: command, environment: environment, collector: collector)
    }

    /// Whether reads are of a copy made by a sync command.
    var isSynced: Bool { sync != nil }

    /// The first sync that failed, in words; nil while none has.
    var failure: String? { failed.withLock { $0 } }

    /// Where the harness reads `path`, a path the app named: under `local` when it is
    /// under the app's storage (the same path when the storage is local), else unchanged.
    func local(_ path: String) -> String {
        guard app != local else { return path }
        if path == app { return local }
        let prefix = app.hasSuffix("/") ? app : app + "/"
        return path.hasPrefix(prefix) ? (local as NSString).appendingPathComponent(String(path.dropFirst(prefix.count))) : path
    }

    /// `body` given the local directory, after a sync for `read` when there is a sync
    /// command; nil when that sync failed (recorded, and kept as `failure`). Blocks.
    func read<T: Sendable>(for read: String, _ body: (String) -> T) -> T? {
        guard let sync else { return body(local) }
        return lock.withLock { _ in
            guard copy(for: read, sync) else { return nil }
            return body(local)
        }
    }

    /// Empties the local copy, runs the sync command and records it; whether it succeeded.
    private func copy(for read: String, _ sync: Sync) -> Bool {
        let started = ContinuousClock.now
        let t = sync.collector.now
        let error = emptyLocal() ?? runCommand(for: read, sync)
        let seconds = (ContinuousClock.now - started).seconds
        sync.collector.harness(.storageSynced(read: read, seconds: (seconds * 1000).rounded() / 1000, error: error), at: t)
        guard let error else { return true }
        failed.withLock { $0 = $0 ?? "the storage sync before a read (\(read)) failed: \(error)" }
        return false
    }

    /// Removes what the local copy holds and makes sure it exists; why it could not.
    private func emptyLocal() -> String? {
        let files = FileManager.default
        do {
            if files.fileExists(atPath: local) { try files.removeItem(atPath: local) }
            try files.createDirectory(atPath: local, withIntermediateDirectories: true)
            return nil
        } catch {
            return "could not empty the local copy \(local): \(error.localizedDescription)"
        }
    }

    /// Runs the sync command; why it failed, or nil.
    private func runCommand(for read: String, _ sync: Sync) -> String? {
        var environment = sync.environment
        environment[AppLaunch.Variable.syncTo] = local
        environment[AppLaunch.Variable.read] = read
        let outcome: ChildProcess.Outcome
        do {
            outcome = try ChildProcess.runWaiting(
                "/bin/sh", ["-c", sync.command], timeout: Self.syncTimeout, environment: environment, ownProcessGroup: true)
        } catch {
            return "the command could not start: \(error)"
        }
        let said = AgentProcess.tail(ofText: outcome.stderr + outcome.stdout).map { "; it wrote: " + $0 } ?? ""
        if outcome.timedOut {
            return "`\(sync.command)` did not end within \(Self.syncTimeout.seconds.formatted()) s (it was killed)\(said)"
        }
        guard outcome.termination == .exited(0) else { return "`\(sync.command)` failed (\(outcome.termination))\(said)" }
        return nil
    }
}
