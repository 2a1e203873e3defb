/// One connection's share of a `LinkScheduler`: the bytes waiting at the
/// bottleneck and the bytes travelling down the delay line.
///
/// Owned by the scheduler; a plain value with no clock of its own. Both queues
/// are arrays with a head index (compacted once the consumed prefix dominates),
/// so steady traffic allocates nothing beyond amortized growth.
struct ShapedFlow: Sendable {
    /// Bytes read from the sender at one instant. Toxiproxy-style, every chunk
    /// carries its arrival so a quantum never starts before its bytes exist.
    struct Chunk: Sendable {
        var bytes: Int
        var arrival: UInt64
    }

    /// Bytes that crossed the bottleneck and are released to the receiver at `release`.
    struct InFlight: Sendable {
        var bytes: Int
        var release: UInt64
    }

    let id: ConnectionID

    private var chunks: [Chunk] = []
    private var chunkHead = 0
    /// Bytes waiting at the bottleneck, including a lost quantum awaiting retransmission.
    private(set) var queuedBytes = 0

    /// Size of the lost quantum that must be sent again first; 0 when none.
    var retransmitBytes = 0
    /// The stream may not be served before this instant (retransmission timeout).
    var heldUntil: UInt64 = 0

    private var inFlight: [InFlight] = []
    private var inFlightHead = 0
    /// Bytes in the delay line.
    private(set) var inFlightBytes = 0
    /// Release time of the newest quantum in the delay line (keeps order under jitter).
    private(set) var lastRelease: UInt64 = 0

    init(id: ConnectionID) {
        self.id = id
    }

    // MARK: - Bottleneck queue

    mutating func append(_ bytes: Int, arrival: UInt64) {
        queuedBytes += bytes
        if chunkHead < chunks.count, chunks[chunks.count - 1].arrival == arrival {
            chunks[chunks.count - 1].bytes += bytes
        } else {
            chunks.append(Chunk(bytes: bytes, arrival: arrival))
        }
    }

    /// The earliest instant the bottleneck may serve this flow; nil when it has nothing queued.
    var eligibleAt: UInt64? {
        guard queuedBytes > 0 else { return nil }
        return max(chunks[chunkHead].arrival, heldUntil)
    }

    /// Size of the quantum this flow sends if served at `start`: the pending
    /// retransmission if there is one, else the bytes that had arrived by `start`,
    /// at most `limit`.
    func quantumSize(startingAt start: UInt64, limit: Int) -> Int {
        if retransmitBytes > 0 { return retransmitBytes }
        var total = 0
        var index = chunkHead
        while index < chunks.count, total < limit, chunks[index].arrival <= start {
            total += chunks[index].bytes
            index += 1
        }
        return min(total, limit)
    }

    /// Takes `bytes` off the head of the queue (a quantum that crossed the link).
    mutating func consume(_ bytes: Int) {
        precondition(bytes <= queuedBytes, "a quantum cannot take more than is queued")
        queuedBytes -= bytes
        retransmitBytes = 0
        var remaining = bytes
        while remaining > 0 {
            let take = min(remaining, chunks[chunkHead].bytes)
            chunks[chunkHead].bytes -= take
            remaining -= take
            if chunks[chunkHead].bytes == 0 { chunkHead += 1 }
        }
        if chunkHead == chunks.count {
            chunks.removeAll(keepingCapacity: true)
            chunkHead = 0
        } else if chunkHead >= 64, chunkHead * 2 >= chunks.count {
            chunks.removeFirst(chunkHead)
            chunkHead = 0
        }
    }

    // MARK: - Delay line

    /// Release time of the head of the delay line; nil when it is empty.
    var nextRelease: UInt64? {
        inFlightHead < inFlight.count ? inFlight[inFlightHead].release : nil
    }

    /// Puts a served quantum on the delay line. `release` must not precede `lastRelease`.
    mutating func pushInFlight(_ bytes: Int, release: UInt64) {
        precondition(release >= lastRelease, "the delay line never reorders a connection")
        inFlightBytes += bytes
        lastRelease = release
        if inFlightHead < inFlight.count, inFlight[inFlight.count - 1].release == release {
            inFlight[inFlight.count - 1].bytes += bytes
        } else {
            inFlight.append(InFlight(bytes: bytes, release: release))
        }
    }

    /// Takes every quantum released at or before `now`: (bytes, release of the last one).
    mutating func popReleased(upTo now: UInt64) -> (bytes: Int, last: UInt64) {
        var bytes = 0
        var last: UInt64 = 0
        while inFlightHead < inFlight.count, inFlight[inFlightHead].release <= now {
            bytes += inFlight[inFlightHead].bytes
            last = inFlight[inFlightHead].release
            inFlightHead += 1
        }
        inFlightBytes -= bytes
        if inFlightHead == inFlight.count {
            inFlight.removeAll(keepingCapacity: true)
            inFlightHead = 0
        } else if inFlightHead >= 64, inFlightHead * 2 >= inFlight.count {
            inFlight.removeFirst(inFlightHead)
            inFlightHead = 0
        }
        return (bytes, last)
    }
}
