import BenchCore

/// One direction of a proxied connection, as the driver keeps its books: bytes
/// being written, how each side ended, progress and stalls. Loop thread only.
///
/// The bytes themselves are not here: until the link releases them they wait in
/// the stage of the interface's link chain they have reached (`InterfaceLinks`),
/// and after that in libuv's write requests.
struct Pipe {
    let direction: Direction
    /// Bytes of this direction in the interface's link: enqueued and not yet
    /// delivered. Only a count (the bytes are in the link's stages), kept by the
    /// core as it enqueues and delivers, so that backpressure and stall checks on
    /// every read and write cost nothing; `LinkChain.pendingBytes(for:)` says the same.
    var bytesInLink = 0
    /// Handed to libuv, not yet written to the socket.
    var bytesInWrite = 0
    /// The source sent EOF.
    var sourceEnded = false
    /// We sent FIN to the destination.
    var shutdownStarted = false
    /// The source's end is waiting out the interface's close delay (slow close).
    var endHeld = false
    /// The close delay is over: the source's end may pass.
    var endPassed = false
    /// Total forwarded (released to the destination).
    var total = 0
    /// `total` at the last progress event.
    var reported = 0
    /// When bytes started waiting with none moving, and whether a stall was reported.
    var waitingSince: UInt64?
    var stalledSince: UInt64?

    init(direction: Direction) { self.direction = direction }

    /// Bytes were read; `wasDrained` says nothing of this direction was pending or
    /// being written before them, so they start the stall clock.
    mutating func bytesArrived(now: UInt64, wasDrained: Bool) {
        if wasDrained, waitingSince == nil { waitingSince = now }
    }

    /// Bytes were handed to the destination (so some are being written): records
    /// forward progress and returns how long a reported stall lasted, if one ended.
    mutating func progressed(now: UInt64) -> UInt64? {
        waitingSince = now
        guard let since = stalledSince else { return nil }
        stalledSince = nil
        return now - since
    }
}
