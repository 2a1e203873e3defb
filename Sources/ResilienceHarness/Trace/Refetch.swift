/// A resource the harness found stored whole on the app's disk at a kill (an origin path,
/// or a byte range of one: `MediaResourceKey`), and a request for it after the relaunch. Shared by `crash-recovery` and the
/// `bytesRefetchedAfterCrash` metric.
public struct Refetch: Sendable, Hashable {
    /// The request that fetched it again.
    public var request: TracedOriginRequest
    /// The resource, as the disk snapshot named it (`path`, or `path#bytes=a-b`).
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
    /// Those of them, with body bytes, for a resource in `stored` (one per request).
    public var refetches: [Refetch]
    /// Those of them for a resource in `stored` that carried no body (e.g. 416): asked, but
    /// nothing fetched again.
    public var emptyRequests: [Refetch]
}

extension ScenarioTrace {
    /// Compares the resources stored whole on disk at `restarts[index]`'s kill with the
    /// requests the app made after it (`requests(afterRestart:)`). Nil for a bad index
    /// or a kill without a disk snapshot.
    ///
    /// A request asks again for a whole file the disk held unless it was for one of the
    /// file's named ranges (`ranges`, the origin's playlists, with those the snapshot
    /// names: another resource); it asks again for a byte range the disk held when it was
    /// for that range, or, for no named range, when the bytes it asked for (sent, when
    /// it carried a body) include one of the range's.
    public func refetchCheck(restart index: Int, ranges layout: NamedRanges = NamedRanges()) -> RefetchCheck? {
        guard let snapshot = diskSnapshot(restart: index) else { return nil }
        let stored = snapshot.stored.subtracting(snapshot.partial.keys)
        let after = requests(afterRestart: index)
        let named = snapshot.namedRanges.merging(layout)
        let keys = stored.map(MediaResourceKey.init).sorted()
        var asked: [Refetch] = []
        for request in after {
            let askedFor = named.range(askedBy: request)
            // One refetch per request (the first resource it asked again, by key), so that
            // its bytes are counted once.
            for key in keys {
                guard key.path == request.path else { continue }
                if let range = key.range {
                    if let askedFor {
                        guard askedFor == range else { continue }
                    } else if request.record.bytesSent > 0 {
                        guard request.servedBytes.overlaps(range) else { continue }
                    } else {
                        guard request.askedBytes?.overlaps(range) ?? true else { continue }
                    }
                } else if askedFor != nil {
                    continue
                }
                asked.append(Refetch(request: request, path: key.description))
                break
            }
        }
        return RefetchCheck(
            snapshot: snapshot, stored: stored, requestsAfter: after,
            refetches: asked.filter { $0.request.record.bytesSent > 0 },
            emptyRequests: asked.filter { $0.request.record.bytesSent == 0 })
    }
}
