import BenchCore

/// The connection faults that keep time rather than count bytes: reset or close a
/// connection once it has been open a while (`ConnectionFaults.resetAfterTime`,
/// `closeAfterTime`), and slow close (`closeDelay`: a side's end reaches the other side
/// that much later).
///
/// A pure state machine of one interface (`InterfaceLinks`), loop thread only: the driver
/// tells it when each connection opened (`open`), asks it whether an end must wait
/// (`holdEnd`), folds `nextDeadline()` into the timer it arms, and at each wake-up
/// performs what `due(now:)` returns. Time is passed in (monotonic ns), never read.
///
/// Every setting applies to the connections already open, by their age: a time setting
/// that arrives when a connection is older than it ends that connection at the next
/// `due`; one removed stops for them; an end held by a close delay that is removed or
/// shortened passes as soon as its new instant has come.
struct ConnectionTimers: Sendable {
    /// What the driver must do when a timer falls due.
    enum Action: Equatable, Sendable {
        /// Reset or close the connection (then remove it).
        case fault(ConnectionID, FaultAction)
        /// Pass the held end of `Direction`'s sender to its receiver now.
        case passEnd(ConnectionID, Direction)
    }

    /// The time fault that fires first on every connection, with its offset from the
    /// opening in ns; nil when neither is set.
    private var timedFault: (offset: UInt64, action: FaultAction)?
    /// The close delay in ns; nil when there is none (or it is zero).
    private var closeDelay: UInt64?
    /// Open connections in opening order (connection ids are given in that order).
    private var opened: [(id: ConnectionID, at: UInt64)] = []
    /// Ends waiting out the close delay: since when each would have passed.
    private var heldEnds: [(id: ConnectionID, direction: Direction, since: UInt64)] = []

    init(faults: ConnectionFaults) {
        update(faults: faults)
    }

    /// A live change, felt at once by every open connection (at the next `due`).
    mutating func update(faults: ConnectionFaults) {
        timedFault = Self.firstTimedFault(faults)
        closeDelay = faults.closeDelay.map(\.nanoseconds).flatMap { $0 > 0 ? $0 : nil }
    }

    /// True when some timer can fall due: a time fault is set, or an end is held.
    var isArmed: Bool { timedFault != nil || !heldEnds.isEmpty }

    /// A connection was accepted at `at`.
    mutating func open(_ id: ConnectionID, at: UInt64) {
        if let last = opened.last, last.at > at {
            let index = opened.firstIndex { $0.at > at }!
            opened.insert((id, at), at: index)
        } else {
            opened.append((id, at))
        }
    }

    /// The sender of `direction` ended (EOF) and everything it sent before has been
    /// delivered: with a close delay the end waits (true, and `due` says when it passes);
    /// without one it passes now (false).
    mutating func holdEnd(of id: ConnectionID, _ direction: Direction, now: UInt64) -> Bool {
        guard closeDelay != nil else { return false }
        heldEnds.append((id, direction, now))
        return true
    }

    /// Forgets a connection (it ended).
    mutating func remove(_ id: ConnectionID) {
        if let index = opened.firstIndex(where: { $0.id == id }) { opened.remove(at: index) }
        if !heldEnds.isEmpty { heldEnds.removeAll { $0.id == id } }
    }

    /// The earliest instant a timer falls due; nil when none can.
    func nextDeadline() -> UInt64? {
        var earliest: UInt64?
        if let timed = timedFault, let first = opened.first {
            earliest = first.at.addingSaturating(timed.offset)
        }
        guard !heldEnds.isEmpty else { return earliest }
        for held in heldEnds {
            let due = held.since.addingSaturating(closeDelay ?? 0)
            earliest = min(earliest ?? due, due)
        }
        return earliest
    }

    /// Takes what is due by `now`, in order: connections whose time ran out (oldest
    /// first), then held ends whose delay has passed. Each is returned once.
    mutating func due(now: UInt64) -> [Action] {
        guard isArmed else { return [] }
        var actions: [Action] = []
        if let timed = timedFault {
            var expired = 0
            while expired < opened.count, opened[expired].at.addingSaturating(timed.offset) <= now {
                actions.append(.fault(opened[expired].id, timed.action))
                expired += 1
            }
            opened.removeFirst(expired)
        }
        if !heldEnds.isEmpty {
            let delay = closeDelay ?? 0
            for held in heldEnds where held.since.addingSaturating(delay) <= now {
                actions.append(.passEnd(held.id, held.direction))
            }
            heldEnds.removeAll { $0.since.addingSaturating(delay) <= now }
        }
        return actions
    }

    /// Whichever of `resetAfterTime` and `closeAfterTime` comes first (a negative one
    /// counts as zero): at equal times the reset wins, as it does for byte counts. The
    /// reasons begin as those of the byte faults do ("reset after", "close after").
    private static func firstTimedFault(_ faults: ConnectionFaults) -> (offset: UInt64, action: FaultAction)? {
        let reset = faults.resetAfterTime.map { max($0, .zero) }
        let close = faults.closeAfterTime.map { max($0, .zero) }
        if let reset, close.map({ reset <= $0 }) ?? true {
            return (reset.nanoseconds, .reset(reason: "reset after being open for \(Units.format(reset))"))
        }
        guard let close else { return nil }
        return (close.nanoseconds, .close(reason: "close after being open for \(Units.format(close))"))
    }
}
