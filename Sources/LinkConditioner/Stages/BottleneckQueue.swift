/// One connection's bytes waiting at a `BottleneckStage`: the per-connection state
/// of the bottleneck. Owned by the stage; a plain value with no clock of its own.
///
/// Segments sit in an array with a head index (compacted once the consumed prefix
/// dominates), so steady traffic allocates nothing beyond amortized growth.
struct BottleneckQueue<Payload: LinkPayload> {
    /// Bytes that reached the bottleneck at one instant. Toxiproxy-style, each
    /// carries its arrival, so a quantum never starts before its bytes exist.
    struct Segment {
        var payload: Payload
        var arrival: UInt64
        /// A lost quantum waiting to be sent again: served whole, never merged.
        var isRetransmission: Bool
    }

    let id: ConnectionID
    private var segments: [Segment] = []
    private var head = 0
    /// Bytes waiting, a lost quantum awaiting retransmission included.
    private(set) var queuedBytes = 0
    /// The connection may not be served before this instant (retransmission timeout).
    private(set) var heldUntil: UInt64 = 0

    init(id: ConnectionID) {
        self.id = id
    }

    /// Queues bytes that arrived at `arrival` (no earlier than those already queued).
    mutating func append(_ payload: consuming Payload, arrival: UInt64) {
        queuedBytes += payload.count
        let last = segments.count - 1
        if head <= last, segments[last].arrival == arrival, !segments[last].isRetransmission {
            segments[last].payload.append(payload)
        } else {
            segments.append(Segment(payload: payload, arrival: arrival, isRetransmission: false))
        }
    }

    /// Puts a lost quantum back at the head, to be sent again whole, and holds the
    /// connection until `heldUntil`.
    mutating func pushRetransmission(_ payload: consuming Payload, arrival: UInt64, heldUntil: UInt64) {
        queuedBytes += payload.count
        self.heldUntil = max(self.heldUntil, heldUntil)
        let segment = Segment(payload: payload, arrival: arrival, isRetransmission: true)
        if head > 0 {
            head -= 1
            segments[head] = segment
        } else {
            segments.insert(segment, at: 0)
        }
    }

    /// The earliest instant the bottleneck may serve this connection; nil when nothing is queued.
    var eligibleAt: UInt64? {
        guard queuedBytes > 0 else { return nil }
        return max(segments[head].arrival, heldUntil)
    }

    /// Size of the quantum this connection sends if served at `start`: a pending
    /// retransmission whole, else the bytes that had arrived by `start`, at most `limit`.
    func quantumSize(startingAt start: UInt64, limit: Int) -> Int {
        if segments[head].isRetransmission { return segments[head].payload.count }
        var total = 0
        var index = head
        while index < segments.count, total < limit, segments[index].arrival <= start {
            total += segments[index].payload.count
            index += 1
        }
        return min(total, limit)
    }

    /// Takes `bytes` off the head of the queue: a quantum that crossed the link.
    mutating func take(_ bytes: Int) -> Payload {
        precondition(bytes > 0 && bytes <= queuedBytes, "a quantum takes some of what is queued, never more")
        queuedBytes -= bytes
        var taken = Payload()
        var remaining = bytes
        while remaining > 0 {
            if segments[head].payload.count <= remaining {
                var whole = Payload()
                swap(&whole, &segments[head].payload)  // leaves no reference behind in the consumed slot
                remaining -= whole.count
                taken.append(whole)
                head += 1
            } else {
                taken.append(segments[head].payload.removePrefix(remaining))
                remaining = 0
            }
        }
        if head == segments.count {
            segments.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 64, head * 2 >= segments.count {
            segments.removeFirst(head)
            head = 0
        }
        return taken
    }
}

extension BottleneckQueue: Sendable where Payload: Sendable {}
extension BottleneckQueue.Segment: Sendable where Payload: Sendable {}
