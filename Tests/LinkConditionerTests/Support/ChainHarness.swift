import BenchCore
@testable import LinkConditioner

/// What the link chain told the driver, by byte counts: `LinkOutput` of a chain
/// that carries `ByteCount`s, in the terms the chain tests assert.
enum ChainOutput: Equatable, Sendable {
    case deliver(ConnectionID, bytes: Int)
    case lost(ConnectionID, bytes: Int, heldUntil: UInt64)

    init(_ output: LinkOutput<ByteCount>) {
        switch output {
        case let .deliver(connection, payload): self = .deliver(connection, bytes: payload.count)
        case let .lost(connection, bytes, heldUntil): self = .lost(connection, bytes: bytes, heldUntil: heldUntil)
        case .fault: preconditionFailure("a link chain has no connection faults; InterfaceLinks adds them")
        }
    }
}

/// Plays the libuv driver around one direction's `LinkChain` (bottleneck, loss,
/// delay) with a hand-moved clock, and keeps the books: what was enqueued,
/// delivered (and when), lost, discarded.
struct ChainHarness {
    struct Delivery {
        var at: UInt64
        var connection: ConnectionID
        var bytes: Int
    }

    struct Loss {
        var at: UInt64
        var connection: ConnectionID
        var bytes: Int
        var heldUntil: UInt64
    }

    var chain: LinkChain<ByteCount>
    private(set) var now: UInt64
    private(set) var enqueued: [ConnectionID: Int] = [:]
    private(set) var delivered: [ConnectionID: Int] = [:]
    private(set) var deliveries: [Delivery] = []
    private(set) var losses: [Loss] = []
    /// Number of `advance` calls made.
    private(set) var advanceCalls = 0

    init(_ parameters: LinkDirectionParameters, rto: Duration = .milliseconds(200), seed: UInt64 = 1, now: UInt64 = 0) {
        chain = LinkChain(
            parameters: parameters, retransmissionTimeout: rto.nanoseconds,
            generator: SeededGenerator(seed: seed), now: now)
        self.now = now
    }

    mutating func enqueue(_ bytes: Int, for connection: ConnectionID) {
        chain.enqueue(ByteCount(bytes), for: connection, now: now)
        enqueued[connection, default: 0] += bytes
    }

    /// Moves the clock to `time` and performs what the chain says.
    @discardableResult
    mutating func advance(to time: UInt64) -> [ChainOutput] {
        precondition(time >= now, "the monotonic clock never goes back")
        now = time
        advanceCalls += 1
        let outputs = chain.advance(to: time).map(ChainOutput.init)
        for output in outputs {
            switch output {
            case let .deliver(connection, bytes):
                delivered[connection, default: 0] += bytes
                deliveries.append(Delivery(at: time, connection: connection, bytes: bytes))
            case let .lost(connection, bytes, heldUntil):
                losses.append(Loss(at: time, connection: connection, bytes: bytes, heldUntil: heldUntil))
            }
        }
        return outputs
    }

    /// Moves the clock without advancing the chain: a driver that stopped pumping.
    mutating func skipTime(to time: UInt64) {
        precondition(time >= now, "the monotonic clock never goes back")
        now = time
    }

    mutating func update(_ parameters: LinkDirectionParameters, rto: Duration = .milliseconds(200)) {
        chain.update(parameters: parameters, retransmissionTimeout: rto.nanoseconds, now: now)
    }

    /// A sender that always has data: tops each connection up to `backlog` pending bytes.
    mutating func keepBacklogged(_ connections: [ConnectionID], backlog: Int = 64 * 1024) {
        for connection in connections {
            let pending = chain.pendingBytes(for: connection)
            if pending < backlog { enqueue(backlog - pending, for: connection) }
        }
    }

    /// Ticks like a libuv timer: every `tick`, late by up to `lateness` (uniform),
    /// keeping `backlogged` connections busy, until `end`.
    mutating func run(
        until end: UInt64, tick: UInt64 = 1_000_000, lateness: UInt64 = 0,
        backlogged: [ConnectionID] = [], rng: inout SeededGenerator
    ) {
        keepBacklogged(backlogged)
        var scheduled = now
        while now < end {
            scheduled += tick
            let late = lateness == 0 ? 0 : UInt64(rng.unit() * Double(lateness + 1))
            advance(to: min(max(scheduled + late, now), end))
            keepBacklogged(backlogged)
        }
    }

    /// Advances exactly to each deadline the chain asks for, until `end`
    /// (or until it has nothing left), so every event is seen at its own instant.
    mutating func stepThroughDeadlines(until end: UInt64, backlogged: [ConnectionID] = [], maxSteps: Int = 10_000_000) {
        keepBacklogged(backlogged)
        var steps = 0
        while let deadline = chain.nextDeadline(), deadline <= end, steps < maxSteps {
            advance(to: max(deadline, now))
            keepBacklogged(backlogged)
            steps += 1
        }
    }

    /// Bytes delivered to `connection` by advance calls in (from, to].
    func delivered(_ connection: ConnectionID, after from: UInt64, upTo to: UInt64) -> Int {
        deliveries.lazy.filter { $0.connection == connection && $0.at > from && $0.at <= to }.reduce(0) { $0 + $1.bytes }
    }
}

/// Jain's fairness index: 1 when every share is equal, 1/n when one takes all.
func jainIndex(_ shares: [Double]) -> Double {
    let sum = shares.reduce(0, +)
    let squares = shares.reduce(0) { $0 + $1 * $1 }
    return sum * sum / (Double(shares.count) * squares)
}

let second: UInt64 = 1_000_000_000
let millisecond: UInt64 = 1_000_000

func mbit(_ megabits: Double) -> RateSpec { .constant(bitsPerSecond: megabits * 1e6) }
