@testable import LinkConditioner

/// A payload that is only a number of bytes: for tests about rates and times.
struct ByteCount: LinkPayload, Equatable, Sendable, ExpressibleByIntegerLiteral {
    var count: Int

    init() { count = 0 }
    init(_ count: Int) { self.count = count }
    init(integerLiteral value: Int) { count = value }

    mutating func removePrefix(_ n: Int) -> ByteCount {
        precondition(n > 0 && n < count, "a prefix is some of the bytes, not all")
        count -= n
        return ByteCount(n)
    }

    mutating func append(_ other: ByteCount) { count += other.count }
}

/// A payload that knows which bytes of its stream it carries, as half-open ranges
/// of stream offsets: for tests that bytes arrive whole, once, and in order.
struct StreamBytes: LinkPayload, Equatable, Sendable {
    private(set) var ranges: [Range<Int>] = []

    init() {}
    init(_ range: Range<Int>) { if !range.isEmpty { ranges = [range] } }

    var count: Int { ranges.reduce(0) { $0 + $1.count } }

    mutating func removePrefix(_ n: Int) -> StreamBytes {
        precondition(n > 0 && n < count, "a prefix is some of the bytes, not all")
        var prefix = StreamBytes()
        var remaining = n
        while remaining > 0 {
            let head = ranges[0]
            if head.count <= remaining {
                prefix.append(StreamBytes(head))
                ranges.removeFirst()
                remaining -= head.count
            } else {
                prefix.append(StreamBytes(head.lowerBound..<head.lowerBound + remaining))
                ranges[0] = head.lowerBound + remaining..<head.upperBound
                remaining = 0
            }
        }
        return prefix
    }

    mutating func append(_ other: StreamBytes) {
        for range in other.ranges {
            if let last = ranges.last, last.upperBound == range.lowerBound {
                ranges[ranges.count - 1] = last.lowerBound..<range.upperBound
            } else {
                ranges.append(range)
            }
        }
    }
}

/// Drives any one stage alone with a hand-moved clock: the loop mahimahi runs,
/// in a few lines, because every stage has the same interface.
struct StageDriver<Stage: LinkStage> {
    var stage: Stage
    private(set) var now: UInt64
    /// Every packet that left the stage, in the order `dequeue` gave them.
    private(set) var departures: [LinkPacket<Stage.Payload>] = []

    init(_ stage: Stage, now: UInt64 = 0) {
        self.stage = stage
        self.now = now
    }

    mutating func enqueue(_ payload: Stage.Payload, for connection: ConnectionID, heldUntil: UInt64? = nil) {
        stage.enqueue(LinkPacket(connection: connection, payload: payload, at: now, heldUntil: heldUntil))
    }

    /// Moves the clock to `time` and takes everything ready by then.
    @discardableResult
    mutating func advance(to time: UInt64) -> [LinkPacket<Stage.Payload>] {
        precondition(time >= now, "the monotonic clock never goes back")
        now = time
        var out: [LinkPacket<Stage.Payload>] = []
        while let packet = stage.dequeue(readyBy: time) { out.append(packet) }
        departures += out
        return out
    }

    /// Advances to each deadline the stage asks for, until `end` or until it has none.
    mutating func stepThroughDeadlines(until end: UInt64) {
        while let deadline = stage.nextDeadline(), deadline <= end {
            advance(to: max(deadline, now))
        }
    }
}
