import Testing
@testable import FixtureOrigin

/// The request deadline as a script: events in, the timer action out, with no sockets
/// and no real time (instants are plain nanosecond numbers).
@Suite struct RequestDeadlineTests {
    static let second: UInt64 = 1_000_000_000

    @Test func aRequestThatArrivesInTimeNeverTimesOut() {
        var deadline = RequestDeadline(limitNanoseconds: 10 * Self.second)
        // The first byte starts the clock.
        #expect(deadline.bytesReceived(atNanoseconds: 100) == .arm(atNanoseconds: 100 + 10 * Self.second))
        // More bytes and the head do not move it.
        #expect(deadline.bytesReceived(atNanoseconds: 200) == .none)
        #expect(deadline.requestHeadReceived(atNanoseconds: 300) == .none)
        // The end stops it.
        #expect(deadline.requestEnded() == .disarm)
        // A late timer (cancelled too late) finds nothing to do.
        #expect(deadline.timerFired(atNanoseconds: 20 * Self.second) == .none)
    }

    @Test func aTricklingHeadTimesOutBeforeAnyHeadIsDecoded() {
        var deadline = RequestDeadline(limitNanoseconds: Self.second)
        #expect(deadline.bytesReceived(atNanoseconds: 0) == .arm(atNanoseconds: Self.second))
        for t in stride(from: 100_000_000, to: Self.second, by: 100_000_000) {
            #expect(deadline.bytesReceived(atNanoseconds: UInt64(t)) == .none)  // each byte does not restart the clock
        }
        #expect(deadline.timerFired(atNanoseconds: Self.second) == .timeOut(headReceived: false))
        // Once timed out, nothing more happens.
        #expect(deadline.bytesReceived(atNanoseconds: 2 * Self.second) == .none)
        #expect(deadline.requestHeadReceived(atNanoseconds: 2 * Self.second) == .none)
        #expect(deadline.timerFired(atNanoseconds: 3 * Self.second) == .none)
    }

    @Test func aSilentBodyTimesOutWithTheHeadKnown() {
        var deadline = RequestDeadline(limitNanoseconds: Self.second)
        _ = deadline.bytesReceived(atNanoseconds: 0)
        _ = deadline.requestHeadReceived(atNanoseconds: 10)
        #expect(deadline.timerFired(atNanoseconds: Self.second + 5) == .timeOut(headReceived: true))
    }

    @Test func anEarlyTimerWaitsForTheRest() {
        var deadline = RequestDeadline(limitNanoseconds: Self.second)
        _ = deadline.bytesReceived(atNanoseconds: 0)
        #expect(deadline.timerFired(atNanoseconds: Self.second - 1) == .arm(atNanoseconds: Self.second))
        #expect(deadline.timerFired(atNanoseconds: Self.second) == .timeOut(headReceived: false))
    }

    @Test func theClockIsPausedWhileAResponseIsSent() {
        var deadline = RequestDeadline(limitNanoseconds: Self.second)
        _ = deadline.bytesReceived(atNanoseconds: 0)
        #expect(deadline.requestEnded() == .disarm)
        // The next request's head came in the same read, while the server answers the first:
        // the server is not reading, so the client cannot be blamed; no timer.
        #expect(deadline.requestHeadReceived(atNanoseconds: 50) == .none)
        #expect(deadline.timerFired(atNanoseconds: 5 * Self.second) == .none)
        // The response ends at 5 s: the clock starts for the waiting request.
        #expect(deadline.responseEnded(atNanoseconds: 5 * Self.second) == .arm(atNanoseconds: 6 * Self.second))
        #expect(deadline.timerFired(atNanoseconds: 6 * Self.second) == .timeOut(headReceived: true))
    }

    @Test func waitingBetweenRequestsIsNotCounted() {
        var deadline = RequestDeadline(limitNanoseconds: Self.second)
        _ = deadline.bytesReceived(atNanoseconds: 0)
        _ = deadline.requestEnded()
        #expect(deadline.responseEnded(atNanoseconds: 100) == .none)  // nothing of the next request yet
        // A minute of keep-alive silence, then the next request: a fresh clock.
        #expect(deadline.bytesReceived(atNanoseconds: 60 * Self.second) == .arm(atNanoseconds: 61 * Self.second))
        #expect(deadline.requestEnded() == .disarm)
    }

    @Test func aPipelinedHeadAfterTheResponseStartsItsOwnClock() {
        var deadline = RequestDeadline(limitNanoseconds: Self.second)
        _ = deadline.bytesReceived(atNanoseconds: 0)
        _ = deadline.requestEnded()
        #expect(deadline.responseEnded(atNanoseconds: 10) == .none)
        // The decoder held the second head until now (its bytes came with the first request).
        #expect(deadline.requestHeadReceived(atNanoseconds: 20) == .arm(atNanoseconds: 20 + Self.second))
        #expect(deadline.requestEnded() == .disarm)
    }
}
