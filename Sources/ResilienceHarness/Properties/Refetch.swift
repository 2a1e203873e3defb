/// A segment stored before a kill and requested from the origin again after it.
/// Shared by `crash-recovery` and the `bytesRefetchedAfterCrash` metric.
public struct Refetch: Sendable, Hashable {
    /// The request that fetched it again.
    public var request: TracedOriginRequest
    /// The segment as stored before the kill.
    public var segment: TracedSegment
}

/// What the segments stored before one kill became after it.
public struct RefetchCheck: Sendable, Hashable {
    /// Paths stored before the kill, each with its (first) stored segment.
    public var stored: [String: TracedSegment]
    /// Paths stored by several segments (byte-range media): not judged, since the trace
    /// does not say which range each stored segment was.
    public var sharedPaths: [String]
    /// Requests that started after the kill (and before the next one).
    public var requestsAfter: [TracedOriginRequest]
    /// Those of them that fetched a stored path again.
    public var refetches: [Refetch]
}

extension ScenarioTrace {
    /// Compares the segments stored before `restarts[index]`'s kill with the origin
    /// requests that started after it and before the next kill (nil for a bad index).
    public func refetchCheck(restart index: Int) -> RefetchCheck? {
        guard restarts.indices.contains(index) else { return nil }
        let kill = restarts[index].kill.t
        let nextKill = index + 1 < restarts.count ? restarts[index + 1].kill.t : nil
        let byPath = Dictionary(grouping: segmentsStored.filter { $0.t < kill }, by: \.path)
        let shared = byPath.filter { Set($0.value.map { "\($0.download)/\($0.stream)/\($0.index)" }).count > 1 }
        let stored = byPath.compactMapValues(\.first)
        let after = originRequests.filter { request in
            request.start > kill && (nextKill.map { request.start < $0 } ?? true)
        }
        let refetches = after.compactMap { request -> Refetch? in
            guard shared[request.path] == nil, let segment = stored[request.path] else { return nil }
            return Refetch(request: request, segment: segment)
        }
        return RefetchCheck(
            stored: stored, sharedPaths: shared.keys.sorted(), requestsAfter: after, refetches: refetches)
    }
}
