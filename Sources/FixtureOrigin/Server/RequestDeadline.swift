/// How long one request may take to arrive, as a value-type state machine: the clock
/// starts at the first byte of a request and stops at its end; it is paused while a
/// response is in progress (the server does not read then, so the client cannot send).
///
/// Fed by `RequestDeadlineHandler` (raw bytes, before the HTTP decoder) and by
/// `OriginHTTPHandler` (request heads and ends, response ends), on the connection's event
/// loop; each event returns what to do with the one timer the handler keeps. Times are
/// `TraceClock` nanoseconds.
///
/// A limitation worth knowing: bytes of a second request that arrive in the same read as
/// the end of the first are seen before the decoder reports that end, so they do not start
/// the clock; if that request's head is then completed, the clock starts at the head, and
/// if nothing more ever comes, the read-idle timeout closes the connection instead.
struct RequestDeadline {
    /// What the driver must do.
    enum Action: Equatable {
        case none
        /// (Re)schedule the timer to fire at this instant.
        case arm(atNanoseconds: UInt64)
        /// Cancel the timer.
        case disarm
        /// Time is up: answer 408 and close. `headReceived` says whether the request head
        /// was decoded (the HTTP handler can answer it) or not (only raw bytes arrived).
        case timeOut(headReceived: Bool)
    }

    private enum Phase: Equatable {
        /// Between requests: no byte of the next one yet.
        case idle
        /// Part of a request has arrived.
        case receiving(headReceived: Bool)
        /// Time ran out; nothing more happens on this connection.
        case timedOut
    }

    /// The time one request may take.
    let limitNanoseconds: UInt64
    private var phase = Phase.idle
    /// A response is in progress: the clock is paused.
    private var responding = false
    /// When the timer should fire, while it runs.
    private var deadline: UInt64?

    init(limitNanoseconds: UInt64) {
        self.limitNanoseconds = limitNanoseconds
    }

    /// Bytes arrived from the client.
    mutating func bytesReceived(atNanoseconds now: UInt64) -> Action {
        guard phase == .idle else { return .none }
        phase = .receiving(headReceived: false)
        return start(now)
    }

    /// The HTTP decoder produced a request head (delivered to the handler).
    mutating func requestHeadReceived(atNanoseconds now: UInt64) -> Action {
        switch phase {
        case .idle:
            // The head's bytes came in the read that ended the previous request.
            phase = .receiving(headReceived: true)
            return start(now)
        case .receiving:
            phase = .receiving(headReceived: true)
            return .none
        case .timedOut:
            return .none
        }
    }

    /// The whole request arrived: stop the clock; a response follows.
    mutating func requestEnded() -> Action {
        guard phase != .timedOut else { return .none }
        phase = .idle
        responding = true
        deadline = nil
        return .disarm
    }

    /// The response was sent in full. If part of the next request is already here, its
    /// clock starts now (it could not be sent while the server was not reading).
    mutating func responseEnded(atNanoseconds now: UInt64) -> Action {
        responding = false
        guard case .receiving = phase else { return .none }
        return start(now)
    }

    /// The timer fired at `now`.
    mutating func timerFired(atNanoseconds now: UInt64) -> Action {
        guard case .receiving(let headReceived) = phase, !responding, let deadline else { return .none }
        // A timer can fire a little early by another clock's reckoning: wait the rest.
        guard now >= deadline else { return .arm(atNanoseconds: deadline) }
        phase = .timedOut
        self.deadline = nil
        return .timeOut(headReceived: headReceived)
    }

    private mutating func start(_ now: UInt64) -> Action {
        guard !responding else { return .none }
        let at = now &+ limitNanoseconds
        deadline = at
        return .arm(atNanoseconds: at)
    }
}
