import BenchCore

/// One direction of a proxied connection: bytes read from the source that the
/// link has not yet released, and the bookkeeping around them. Loop thread only.
struct Pipe {
    let direction: Direction
    /// Read from the source, waiting for the scheduler to release them (FIFO).
    private var slices: [ChunkSlice] = []
    private var head = 0
    private(set) var pendingBytes = 0
    /// Handed to libuv, not yet written to the socket.
    var bytesInWrite = 0
    /// The source sent EOF.
    var sourceEnded = false
    /// We sent FIN to the destination.
    var shutdownStarted = false
    /// Total forwarded (released to the destination).
    var total = 0
    /// `total` at the last progress event.
    var reported = 0
    /// When bytes started waiting with none moving, and whether a stall was reported.
    var waitingSince: UInt64?
    var stalledSince: UInt64?

    init(direction: Direction) { self.direction = direction }

    var isDrained: Bool { pendingBytes == 0 && bytesInWrite == 0 }

    /// Finished: the source ended and everything it sent was written.
    var isFinished: Bool { sourceEnded && isDrained }

    mutating func append(_ slice: ChunkSlice, now: UInt64) {
        if isDrained, waitingSince == nil { waitingSince = now }
        slices.append(slice)
        pendingBytes += slice.count
    }

    /// Takes the first `count` pending bytes (fewer if fewer are pending).
    mutating func take(_ count: Int) -> [ChunkSlice] {
        var remaining = min(count, pendingBytes)
        var out: [ChunkSlice] = []
        while remaining > 0, head < slices.count {
            let slice = slices[head]
            if slice.count <= remaining {
                out.append(slice)
                remaining -= slice.count
                pendingBytes -= slice.count
                head += 1
            } else {
                out.append(ChunkSlice(chunk: slice.chunk, offset: slice.offset, count: remaining))
                slices[head] = ChunkSlice(chunk: slice.chunk, offset: slice.offset + remaining, count: slice.count - remaining)
                pendingBytes -= remaining
                remaining = 0
            }
        }
        if head > 32, head * 2 > slices.count {
            slices.removeFirst(head)
            head = 0
        }
        return out
    }

    /// Drops everything pending (the connection is going away).
    mutating func discard() -> Int {
        let dropped = pendingBytes
        slices.removeAll()
        head = 0
        pendingBytes = 0
        return dropped
    }

    /// Records forward progress; returns how long a reported stall lasted, if one ended.
    mutating func progressed(now: UInt64) -> UInt64? {
        waitingSince = isDrained ? nil : now
        guard let since = stalledSince else { return nil }
        stalledSince = nil
        return now - since
    }
}
