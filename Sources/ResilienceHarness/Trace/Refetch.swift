/// An origin path the harness found stored whole on the app's disk at a kill, and a
/// request for it after the relaunch. Shared by `crash-recovery` and the
/// `bytesRefetchedAfterCrash` metric.
public struct Refetch: Sendable, Hashable {
    /// The request that fetched it again.
    public var request: TracedOriginRequest
    /// The origin path, as the disk snapshot named it.
    public var path: String
}

/// What the paths stored whole on disk at one kill became after the relaunch.
public struct RefetchCheck: Sendable, Hashable {
    /// The disk snapshot of the kill.
    public var snapshot: TracedDiskSnapshot
    /// Paths the disk held the whole of (and no partial copy of: a resumed partial copy
    /// of the same path is judged by the Range rule instead).
    public var stored: Set<String>
    /// Requests the app made after the kill (and before the next one).
    public var requestsAfter: [TracedOriginRequest]
    /// Those of them, with body bytes, for a path in `stored`.
    public var refetches: [Refetch]
    /// Those of them for a path in `stored` that carried no body (e.g. 416): asked, but
    /// nothing fetched again.
    public var emptyRequests: [Refetch]
}

extension ScenarioTrace {
    /// Compares the paths stored whole on disk at `restarts[index]`'s kill with the
    /// requests the app made after it (`requests(afterRestart:)`). Nil for a bad index
    /// or a kill without a disk snapshot.
    public func refetchCheck(restart index: Int) -> RefetchCheck? {
        guard let snapshot = diskSnapshot(restart: index) else { return nil }
        let stored = snapshot.stored.subtracting(snapshot.partial.keys)
        let after = requests(afterRestart: index)
        let asked = after.filter { stored.contains($0.path) }.map { Refetch(request: $0, path: $0.path) }
        return RefetchCheck(
            snapshot: snapshot, stored: stored, requestsAfter: after,
            refetches: asked.filter { $0.request.record.bytesSent > 0 },
            emptyRequests: asked.filter { $0.request.record.bytesSent == 0 })
    }
}
