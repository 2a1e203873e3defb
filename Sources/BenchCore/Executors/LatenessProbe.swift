import Synchronization

/// How late a clock kept by `Timekeeper` woke, measured where the waking code runs.
///
/// Each `tick` sleeps until a deadline and records two figures: how late the timer
/// thread fired (the machine: a thread with nothing else to do woke late), and how late
/// the sleeping code resumed on its executor (the machine plus whatever held that
/// executor). Run on a `DedicatedExecutor` the second figure is the harness's clock;
/// run on the cooperative pool it is the pool's lateness; so a report can say whether
/// the machine or the bench's own work was late.
public final class LatenessProbe: Sendable {
    /// The worst figures so far, in seconds.
    public struct Worst: Sendable, Hashable {
        /// The latest the timer thread fired after a deadline.
        public var timerThread: Double = 0
        /// The latest the probing code resumed after a deadline.
        public var executor: Double = 0

        /// No lateness yet.
        public init() {}
    }

    private let timekeeper: Timekeeper
    private let state = Mutex(Worst())

    /// A probe on `timekeeper`'s timers.
    public init(timekeeper: Timekeeper = .shared) {
        self.timekeeper = timekeeper
    }

    /// Sleeps `interval`, records how late the timer fired and the caller resumed, and
    /// returns the time actually slept.
    /// - Throws: `CancellationError` when the task is cancelled.
    @discardableResult
    public func tick(_ interval: Duration) async throws -> Duration {
        let start = ContinuousClock.now
        let deadline = start + interval
        let fired = try await timekeeper.sleep(until: deadline)
        let resumed = ContinuousClock.now
        record(timerThread: fired - deadline, executor: resumed - deadline)
        return resumed - start
    }

    /// Ticks every `interval` until the task is cancelled.
    public func run(every interval: Duration) async {
        while !Task.isCancelled {
            do { try await tick(interval) } catch { return }
        }
    }

    /// Records one wake's lateness (negative durations count as on time).
    public func record(timerThread: Duration, executor: Duration) {
        state.withLock { worst in
            worst.timerThread = max(worst.timerThread, timerThread.seconds)
            worst.executor = max(worst.executor, executor.seconds)
        }
    }

    /// The worst figures so far.
    public var worst: Worst { state.withLock { $0 } }
}
