import BenchCore
import Synchronization

/// The answers the API has begun and not yet written, so that a stop waits for them (a
/// session's end is answered just before its command stops the API). Any thread.
final class InFlightAnswers: Sendable {
    private struct State {
        var count = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    func begin() { state.withLock { $0.count += 1 } }

    func end() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.count -= 1
            guard state.count == 0 else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no answer is in flight, or after `limit`.
    func drained(within limit: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let id: Int? = state.withLock { state in
                guard state.count > 0 else { return nil }
                defer { state.nextWaiter += 1 }
                state.waiters[state.nextWaiter] = continuation
                return state.nextWaiter
            }
            guard let id else { return continuation.resume() }
            Timekeeper.shared.schedule(after: limit) { [self] in
                let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
                waiter?.resume()
            }
        }
    }
}
