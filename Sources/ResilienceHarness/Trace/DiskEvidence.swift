import Foundation

/// The app's disk as the harness read it right after a kill (`.harness(.diskAtKill)`),
/// each file identified by content: see `HarnessEvent.diskAtKill`.
public struct TracedDiskSnapshot: Sendable, Hashable {
    /// When the harness recorded it (after the process was reaped, before a relaunch).
    public var t: UInt64
    /// The process killed.
    public var pid: Int32
    /// Resources a file held the whole of: origin paths, or byte ranges of them
    /// (`path#bytes=a-b`: `MediaResourceKey`).
    public var stored: Set<String>
    /// Resource → the bytes a file held of it (a strict prefix; of a range, from its first byte).
    public var partial: [String: Int64]
    /// Files the harness could not name: relative path → size.
    public var unknown: [String: Int64]
}

extension TracedDiskSnapshot {
    /// The byte ranges it names (held whole or in part), by path.
    public var namedRanges: NamedRanges {
        NamedRanges(stored.map(MediaResourceKey.init) + partial.keys.map(MediaResourceKey.init))
    }
}

extension ScenarioTrace {
    /// The disk snapshot of `restarts[index]`'s kill: the first `.harness(.diskAtKill)`
    /// of the killed pid at or after the kill and before the next kill (nil when none,
    /// or for a bad index).
    public func diskSnapshot(restart index: Int) -> TracedDiskSnapshot? {
        guard restarts.indices.contains(index) else { return nil }
        let kill = restarts[index].kill
        let next = nextKill(after: index)
        return diskSnapshots.first { $0.pid == kill.pid && $0.t >= kill.t && $0.t < next }
    }

    /// The origin requests the app made after `restarts[index]`'s kill: those that
    /// started after its disk snapshot (after the kill when there is none: the old
    /// process is reaped by then, so they are the new one's) and before the next kill,
    /// and that the conditioner read from the app after the kill (`sentBy`: a request
    /// of the dead process that the link still held reaches the origin later), by
    /// start. Empty for a bad index.
    public func requests(afterRestart index: Int) -> [TracedOriginRequest] {
        guard restarts.indices.contains(index) else { return [] }
        let from = diskSnapshot(restart: index)?.t ?? restarts[index].kill.t
        let next = nextKill(after: index)
        let kill = restarts[index].kill.t
        // A request the conditioner read before the kill was the dead app's, however late
        // the link delivered it to the origin.
        return originRequests.filter { $0.start > from && $0.start < next && $0.sentBy > kill }
            .sorted { $0.start < $1.start }
    }

    /// The size of the resource at `path` as the origin served it in full: the end of
    /// the largest response for it that completed (its first byte + body, for a 206);
    /// nil when none did.
    public func servedSize(of path: String) -> Int64? {
        originRequests.filter { $0.path == path && $0.record.completed && [200, 206].contains($0.record.status) }
            .map { request in
                let first = request.record.status == 206 ? request.record.range.flatMap(HTTPByteRange.init)?.first ?? 0 : 0
                return first + Int64(request.record.bytesSent)
            }.max()
    }

    /// The time of the kill after `restarts[index]`'s, `UInt64.max` when none.
    func nextKill(after index: Int) -> UInt64 {
        index + 1 < restarts.count ? restarts[index + 1].kill.t : .max
    }
}
