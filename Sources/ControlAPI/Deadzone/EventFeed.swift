import BenchCore
import LinkConditioner
import Synchronization

/// The run's conditioner events as they happen, for `GET /deadzone/events`: an
/// `EventSink` that keeps them (numbered from 0, up to `capacity`, the oldest dropped
/// first) and hands each to every subscriber. A subscriber asks from a number: what is
/// kept from there is handed at once, then every new event, in order, with nothing lost
/// between the two. Any thread; `record` is called on the conditioner's loop thread and
/// only appends and calls the subscribers (which must return at once: they hop to their
/// own event loop).
public final class EventFeed: EventSink {
    /// Events with their numbers, oldest first.
    public typealias Batch = [(seq: Int, event: ConditionerEvent)]

    public let capacity: Int
    private let state = Mutex(State())

    private struct State {
        var events: [ConditionerEvent] = []
        /// The number of `events[0]`.
        var first = 0
        var subscribers: [Int: @Sendable (Batch) -> Void] = [:]
        var nextSubscriber = 0
    }

    public init(capacity: Int = 200_000) {
        self.capacity = max(1, capacity)
    }

    public func record(_ event: ConditionerEvent) {
        state.withLock { state in
            let seq = state.first + state.events.count
            state.events.append(event)
            if state.events.count > capacity {
                // Dropped a tenth at a time: amortised, the loop thread never shifts the whole log per event.
                let drop = max(1, capacity / 10)
                state.events.removeFirst(drop)
                state.first += drop
            }
            for deliver in state.subscribers.values { deliver([(seq, event)]) }
        }
    }

    /// The number the next event will get.
    public var next: Int { state.withLock { $0.first + $0.events.count } }

    /// The number of the oldest event kept.
    public var oldestKept: Int { state.withLock { $0.first } }

    /// Hands `deliver` the events kept from number `from` on (nil: only those to come),
    /// at once, then each new one. Returns the subscription's id for `unsubscribe`.
    /// - Throws: 410 when events from `from` on are no longer all kept; 400 when `from`
    ///   is past the next number.
    public func subscribe(from: Int?, _ deliver: @escaping @Sendable (Batch) -> Void) throws(APIError) -> Int {
        let result: Result<Int, APIError> = state.withLock { state in
            let next = state.first + state.events.count
            let start = from ?? next
            if start < state.first {
                return .failure(APIError(410, "events before number \(state.first) are no longer kept (the feed keeps "
                    + "the last \(capacity)): ask from=\(state.first) or later"))
            }
            if start > next {
                return .failure(.badRequest("from=\(start) is past the next event's number, \(next): ask from=\(next) or earlier"))
            }
            let kept = state.events[(start - state.first)...]
            if !kept.isEmpty { deliver(kept.enumerated().map { (start + $0.offset, $0.element) }) }
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[id] = deliver
            return .success(id)
        }
        return try result.get()
    }

    /// Stops handing events to subscription `id`.
    public func unsubscribe(_ id: Int) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
    }

    /// How many subscriptions are open.
    public var subscribers: Int { state.withLock { $0.subscribers.count } }
}
