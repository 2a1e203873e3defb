import Dispatch
import Synchronization

/// The process's timers: deadlines kept on a Dispatch queue of their own, never on
/// Swift's cooperative pool.
///
/// A `Task.sleep` is woken by a job on the cooperative pool: while that pool's threads
/// (as many as the machine has cores) are busy or blocked, every sleep in the process
/// wakes late, watchdogs included. A `Timekeeper` timer fires on its own queue's thread
/// whatever the pool is doing; `sleep` resumes the sleeping task on its executor (a
/// `DedicatedExecutor` when the task prefers one), so time-keeping code that runs on a
/// dedicated executor never waits for the pool. See ARCHITECTURE.md, "Executors".
///
/// Callbacks given to `schedule` run on the timer queue, one at a time: they must be
/// short and must not block (they resume a continuation, send a signal, set a flag),
/// or every other timer of the process waits behind them.
public final class Timekeeper: Sendable {
    /// The process's timekeeper.
    public static let shared = Timekeeper(label: "deadzone.timekeeper")

    private let queue: DispatchQueue

    /// A timekeeper whose callbacks run on a new serial queue named `label`.
    public init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInteractive)
    }

    /// A scheduled callback; `cancel` before it fires drops it.
    public final class Timer: Sendable {
        private let item: UncheckedWorkItem

        fileprivate init(_ item: UncheckedWorkItem) { self.item = item }

        /// Drops the callback if it has not begun; harmless afterwards.
        public func cancel() { item.value.cancel() }
    }

    /// Runs `action` on the timer queue once `deadline` has passed.
    @discardableResult
    public func schedule(at deadline: ContinuousClock.Instant, _ action: @escaping @Sendable () -> Void) -> Timer {
        let item = UncheckedWorkItem(DispatchWorkItem(block: action))
        queue.asyncAfter(deadline: Self.dispatchTime(of: deadline), execute: item.value)
        return Timer(item)
    }

    /// Runs `action` on the timer queue after `delay`.
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Timer {
        schedule(at: .now + delay, action)
    }

    /// Suspends the calling task until `deadline`, then resumes it on its own executor;
    /// returns when the timer fired (the task resumes at that instant or later).
    /// - Throws: `CancellationError` as soon as the task is cancelled (as `Task.sleep`).
    @discardableResult
    public func sleep(until deadline: ContinuousClock.Instant) async throws -> ContinuousClock.Instant {
        let waiter = SleepWaiter()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ContinuousClock.Instant, any Error>) in
                guard waiter.install(continuation) else { return }
                waiter.arm(schedule(at: deadline) { waiter.finish(nil) })
            }
        } onCancel: {
            waiter.finish(CancellationError())
        }
    }

    /// Suspends the calling task for `duration` (see `sleep(until:)`).
    @discardableResult
    public func sleep(for duration: Duration) async throws -> ContinuousClock.Instant {
        try await sleep(until: .now + duration)
    }

    /// The Dispatch deadline (CLOCK_MONOTONIC uptime) of a `ContinuousClock` instant.
    private static func dispatchTime(of deadline: ContinuousClock.Instant) -> DispatchTime {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { return .now() }
        return DispatchTime.now() + .nanoseconds(Int(clamping: remaining.nanoseconds))
    }
}

/// `DispatchWorkItem` is thread-safe but not declared `Sendable`.
private final class UncheckedWorkItem: @unchecked Sendable {
    let value: DispatchWorkItem
    init(_ value: DispatchWorkItem) { self.value = value }
}

/// One `sleep`'s continuation, resumed once: by its timer (with the instant it fired),
/// or by cancellation (which may come before the continuation is installed).
private final class SleepWaiter: Sendable {
    private typealias Waiting = CheckedContinuation<ContinuousClock.Instant, any Error>

    private struct State {
        var continuation: Waiting?
        var timer: Timekeeper.Timer?
        var finished = false
        var outcome: Result<ContinuousClock.Instant, any Error> = .success(.now)
    }

    private let state = Mutex(State())

    /// Installs the continuation; false when the sleep was cancelled first (then it was
    /// resumed here with the cancellation).
    func install(_ continuation: CheckedContinuation<ContinuousClock.Instant, any Error>) -> Bool {
        let early: Result<ContinuousClock.Instant, any Error>? = state.withLock { state in
            guard state.finished else {
                state.continuation = continuation
                return nil
            }
            return state.outcome
        }
        guard let early else { return true }
        continuation.resume(with: early)
        return false
    }

    /// Keeps the timer, so that a cancellation can drop it.
    func arm(_ timer: Timekeeper.Timer) {
        let cancelled = state.withLock { state in
            state.timer = timer
            return state.finished
        }
        if cancelled { timer.cancel() }
    }

    /// Resumes the sleeper (with `error`, or with the instant now: its timer fired)
    /// unless it was resumed already.
    func finish(_ error: (any Error)?) {
        let outcome: Result<ContinuousClock.Instant, any Error> = error.map { .failure($0) } ?? .success(.now)
        let (continuation, timer) = state.withLock { state -> (Waiting?, Timekeeper.Timer?) in
            guard !state.finished else { return (nil, nil) }
            state.finished = true
            state.outcome = outcome
            defer { state.continuation = nil }
            return (state.continuation, state.timer)
        }
        if error != nil { timer?.cancel() }
        continuation?.resume(with: outcome)
    }
}
