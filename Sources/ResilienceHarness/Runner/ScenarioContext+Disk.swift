import BenchCore
import FixtureOrigin
import Foundation

extension ScenarioContext {
    /// Right after the app `pid` killed at `killedAt` was reaped, and before any
    /// relaunch: walks its storage directory (the one the harness gave it in `hello`)
    /// and records which origin resources its files hold, by content
    /// (`.harness(.diskAtKill)`, what `crash-recovery` judges). The walk and the hashing
    /// run outside the cooperative pool and the scenario's executor (`OffPool`): the
    /// actor stays free for the path relay meanwhile.
    func recordDisk(pid: Int32, killedAt: UInt64) async {
        let witness = diskWitness
        let storage = storage
        let origin = network.origin
        let epoch = collector.epoch
        let read = await OffPool.run {
            storage.read(for: "kill") { witness.snapshot(storage: $0, origin: origin, killedAt: killedAt, epoch: epoch) }
        }
        guard let seen = read else { return }
        collector.harness(.diskAtKill(pid: pid, stored: seen.stored, partial: seen.partial, unknown: seen.unknown))
    }
}

extension ScenarioContext {
    /// Waits until the origin has begun, since the call, to answer a media-segment
    /// request (a response in progress, or one logged with body bytes), so that a kill
    /// right after it cuts bytes on their way to the app; `crash-recovery` counts only
    /// such kills. Gives up after `timeout` with a note (the kill that follows then
    /// shows as not counting). The origin's view, not the app's: nothing the app says.
    public func waitForMediaResponse(timeout: Duration = .seconds(10)) async throws {
        let origin = network.origin
        let since = collector.epoch &+ collector.now
        let deadline = ContinuousClock.now + timeout
        func begun(_ record: OriginRequestRecord, inProgress: Bool) -> Bool {
            // A single-file fMP4 recording's segments are ranges of an .mp4.
            record.startedAtNanoseconds >= since
                && (OriginPath.isMediaSegment(record.path) || OriginPath.normalized(record.path).lowercased().hasSuffix(".mp4"))
                && (inProgress || record.bytesSent > 0)
        }
        while ContinuousClock.now < deadline {
            if origin.responsesInProgress.contains(where: { begun($0, inProgress: true) })
                || origin.requestLog.reversed().contains(where: { begun($0, inProgress: false) })
            {
                collector.harness(.note("trigger met: a media response on its way to the app"))
                return
            }
            try await Timekeeper.shared.sleep(for: .milliseconds(10))
        }
        collector.harness(.note("no media response began within \(timeout); the kill that follows may cut nothing"))
    }
}

extension ScenarioContext {
    /// Waits until the origin is answering a request whose path (query left out) matches
    /// `glob` (`PathPattern`): a response in progress now, or one begun since the call and
    /// logged already. The origin's view, not the app's.
    /// - Throws: `ScenarioError.timedOut` when none began within `timeout`.
    public func waitForRequest(matching glob: String, timeout: Duration) async throws {
        let origin = network.origin
        let pattern = PathPattern(glob)
        let since = collector.epoch &+ collector.now
        let deadline = ContinuousClock.now + timeout
        func matches(_ record: OriginRequestRecord) -> Bool { pattern.matches(OriginPath.normalized(record.path)) }
        while !(origin.responsesInProgress.contains(where: matches)
            || origin.requestLog.reversed().contains(where: { $0.startedAtNanoseconds >= since && matches($0) }))
        {
            guard ContinuousClock.now < deadline else { throw ScenarioError.timedOut("a request for \(glob) at the origin") }
            try await Timekeeper.shared.sleep(for: .milliseconds(10))
        }
        collector.harness(.note("trigger met: the origin began answering a request for \(glob)"))
    }
}

extension ScenarioContext {
    /// How long after the app answered a pause the harness first reads its storage:
    /// the judge's grace for bytes that were in flight (`PropertyContext.pauseGrace`).
    static let pausedDiskDelay = Duration.seconds(1)

    /// While the user has `download` paused: what the app's storage holds of its video,
    /// by content (`.harness(.diskWhilePaused)`, what `pause-holds` compares between
    /// the first read and the last). Hashing runs off the pool, as at a kill.
    func recordPausedDisk(of download: String) async {
        guard let seen = await videoOnDisk(of: download, for: "paused") else { return }
        collector.harness(.diskWhilePaused(download: download, stored: seen.stored, partial: seen.partial))
    }

    /// After an inspection of a download the user cancelled or deleted: what is left of
    /// it in the app's storage, by content (any stored or partial copy of a resource of
    /// its video) and under the package directory the app had named for it
    /// (`.harness(.leftAfterRemoval)`, what `cancel-delete-clean` judges).
    func recordLeftovers(of download: String) async {
        let storage = storage
        let package = packages.lastPackage(of: download).map {
            storage.local(URL(fileURLWithPath: $0).deletingLastPathComponent().path)
        }
        guard let seen = await videoOnDisk(of: download, for: "removal", alsoListing: package) else { return }
        collector.harness(.leftAfterRemoval(
            download: download, stored: seen.stored, partial: seen.partial, packageFiles: seen.listed.sorted()))
    }

    /// The app's storage read now for `read`, by content (off the pool), keeping the
    /// resources of `download`'s video, and the files under `directory` (a local path) in
    /// the same read; nil for a download the harness did not request, or when the storage
    /// sync before the read failed.
    private func videoOnDisk(of download: String, for read: String, alsoListing directory: String? = nil) async
        -> (stored: [String], partial: [String: Int64], listed: [String])?
    {
        guard let video = videoOf[download] else { return nil }
        let witness = diskWitness
        let storage = storage
        let origin = network.origin
        let epoch = collector.epoch
        let now = collector.now
        let found = await OffPool.run {
            storage.read(for: read) { local in
                (witness.snapshot(storage: local, origin: origin, killedAt: now, epoch: epoch),
                 directory.map { DiskFile.walk($0).map(\.relativePath) } ?? [])
            }
        }
        guard let (seen, listed) = found else { return nil }
        // A fixture video's resources are under its directory; a recorded stream's are its
        // paths (a byte range named `PATH#bytes=FIRST-LAST`).
        let prefix = "/videos/\(video)/"
        let recorded = origin.store.recorded.stream(video).map { Set($0.paths) }
        func belongs(_ key: String) -> Bool {
            guard let recorded else { return key.hasPrefix(prefix) }
            return recorded.contains(String(key.prefix { $0 != "#" }))
        }
        return (seen.stored.filter(belongs), seen.partial.filter { belongs($0.key) }, listed)
    }
}
