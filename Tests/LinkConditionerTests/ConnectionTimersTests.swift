import BenchCore
import Testing
@testable import LinkConditioner

/// The faults that keep time (reset or close after a time open, slow close), on a
/// hand-moved clock: the instant each falls due, live arrival on old connections, removal.
@Suite("ConnectionTimers")
struct ConnectionTimersTests {
    static let reset2s = FaultAction.reset(reason: "reset after being open for 2s")
    static let close5s = FaultAction.close(reason: "close after being open for 5s")

    @Test("a connection is reset exactly resetAfterTime after it opened")
    func resetAfterTime() {
        var timers = ConnectionTimers(faults: ConnectionFaults(resetAfterTime: .seconds(2)))
        timers.open(1, at: second)
        timers.open(2, at: 3 * second / 2)
        #expect(timers.nextDeadline() == 3 * second)
        #expect(timers.due(now: 3 * second - 1).isEmpty)
        #expect(timers.due(now: 3 * second) == [.fault(1, Self.reset2s)])
        #expect(timers.nextDeadline() == 7 * second / 2)
        #expect(timers.due(now: 10 * second) == [.fault(2, Self.reset2s)])
        // Each fires once.
        #expect(timers.due(now: 20 * second).isEmpty && timers.nextDeadline() == nil)
    }

    @Test("a time of zero is due the instant the connection opens")
    func zeroIsAtOnce() {
        var timers = ConnectionTimers(faults: ConnectionFaults(closeAfterTime: .zero))
        timers.open(4, at: 7 * second)
        #expect(timers.due(now: 7 * second) == [.fault(4, .close(reason: "close after being open for 0s"))])
    }

    @Test("arriving live, a time ends at once the connections already older than it, the others at their age")
    func liveArrivalOnOldConnections() {
        var timers = ConnectionTimers(faults: .none)
        timers.open(1, at: 0)
        timers.open(2, at: 9 * second)
        #expect(!timers.isArmed && timers.nextDeadline() == nil)
        #expect(timers.due(now: 10 * second).isEmpty)
        timers.update(faults: ConnectionFaults(resetAfterTime: .seconds(2)))
        #expect(timers.nextDeadline() == 2 * second)  // already past: due now
        #expect(timers.due(now: 10 * second) == [.fault(1, Self.reset2s)])
        #expect(timers.nextDeadline() == 11 * second)
        #expect(timers.due(now: 11 * second) == [.fault(2, Self.reset2s)])
    }

    @Test("removed live, a time no longer ends anything, even a connection past it")
    func removalStopsIt() {
        var timers = ConnectionTimers(faults: ConnectionFaults(closeAfterTime: .seconds(5)))
        timers.open(1, at: 0)
        timers.update(faults: .none)
        #expect(timers.nextDeadline() == nil)
        #expect(timers.due(now: 60 * second).isEmpty)
        // Set again, it counts from the opening again.
        timers.update(faults: ConnectionFaults(closeAfterTime: .seconds(5)))
        #expect(timers.due(now: 60 * second) == [.fault(1, Self.close5s)])
    }

    @Test("the earlier of the two times wins; at the same time the reset does")
    func earlierWinsResetOnATie() {
        var timers = ConnectionTimers(faults: ConnectionFaults(resetAfterTime: .seconds(9), closeAfterTime: .seconds(5)))
        timers.open(1, at: 0)
        #expect(timers.due(now: 5 * second) == [.fault(1, Self.close5s)])
        timers.update(faults: ConnectionFaults(resetAfterTime: .seconds(2), closeAfterTime: .seconds(2)))
        timers.open(2, at: 10 * second)
        #expect(timers.due(now: 12 * second) == [.fault(2, Self.reset2s)])
    }

    @Test("a removed connection is forgotten")
    func removeForgets() {
        var timers = ConnectionTimers(faults: ConnectionFaults(resetAfterTime: .seconds(2)))
        timers.open(1, at: 0)
        timers.open(2, at: second)
        timers.remove(1)
        #expect(timers.nextDeadline() == 3 * second)
        #expect(timers.due(now: 10 * second) == [.fault(2, Self.reset2s)])
    }

    @Test("slow close: an end is held for closeDelay; without one it passes at once")
    func closeDelayHoldsAnEnd() {
        var timers = ConnectionTimers(faults: .none)
        var held = timers.holdEnd(of: 1, .downlink, now: 0)
        #expect(!held)
        timers.update(faults: ConnectionFaults(closeDelay: .seconds(1)))
        held = timers.holdEnd(of: 1, .downlink, now: 2 * second)
        #expect(held)
        held = timers.holdEnd(of: 1, .uplink, now: 5 * second / 2)
        #expect(held)
        #expect(timers.isArmed && timers.nextDeadline() == 3 * second)
        #expect(timers.due(now: 3 * second - 1).isEmpty)
        #expect(timers.due(now: 3 * second) == [.passEnd(1, .downlink)])
        #expect(timers.due(now: 4 * second) == [.passEnd(1, .uplink)])
        #expect(!timers.isArmed)
        // A delay of zero is no delay.
        timers.update(faults: ConnectionFaults(closeDelay: .zero))
        held = timers.holdEnd(of: 2, .downlink, now: 5 * second)
        #expect(!held)
    }

    @Test("slow close removed or shortened live: a held end passes as soon as its new instant has come")
    func closeDelayLiveChanges() {
        var timers = ConnectionTimers(faults: ConnectionFaults(closeDelay: .seconds(10)))
        var held = [timers.holdEnd(of: 1, .downlink, now: 0), timers.holdEnd(of: 2, .downlink, now: 0)]
        #expect(held == [true, true])
        timers.update(faults: ConnectionFaults(closeDelay: .seconds(3)))
        #expect(timers.nextDeadline() == 3 * second)
        #expect(timers.due(now: 3 * second) == [.passEnd(1, .downlink), .passEnd(2, .downlink)])
        held = [timers.holdEnd(of: 3, .uplink, now: 4 * second)]
        timers.remove(3)
        #expect(held == [true] && !timers.isArmed)
        held = [timers.holdEnd(of: 4, .uplink, now: 5 * second)]
        #expect(held == [true])
        timers.update(faults: .none)
        #expect(timers.due(now: 5 * second) == [.passEnd(4, .uplink)])
    }
}
