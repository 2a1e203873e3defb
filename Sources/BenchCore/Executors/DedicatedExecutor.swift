import Foundation
import Synchronization

/// A task executor with a thread of its own: code that keeps time (a scenario's script,
/// its clock and its waits) runs here, so that it never waits for Swift's cooperative
/// pool however busy the pool is.
///
/// `run { … }` runs a body with this executor as the task's preferred executor
/// (`withTaskExecutorPreference`): the body, the nonisolated async functions it calls,
/// the default actors it calls into and its child tasks (task groups, `async let`) all run
/// on this thread; an unstructured `Task { }` started inside does not (give it
/// `Task(executorPreference:)`). A `Task.sleep` would still wake through the pool: sleep
/// with `Timekeeper.shared` instead, whose continuation resumes here. Jobs run one at a
/// time in the order they came; none may block (use `OffPool.run`).
///
/// `shutdown()` lets the thread end once its queue is empty; a job that comes later
/// (a timer firing for a task that outlived its run) runs on the global executor.
public final class DedicatedExecutor: TaskExecutor, @unchecked Sendable {
    // Unchecked: `jobs`, `closed` and `thread` are only touched under `condition`; `name` is immutable.
    /// The thread's name (`ps -L`, debuggers).
    public let name: String
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var closed = false
    /// The thread, once it runs (set before it takes its first job).
    private var thread: pthread_t?

    /// Starts the thread. A `niceness` above 0 lowers its scheduling priority (the nice
    /// value of this one thread, on Linux): for long computations that should yield the
    /// CPU to everything that keeps time.
    public init(name: String, niceness: Int32 = 0) {
        self.name = name
        let thread = Thread { [self] in
            ThreadName.apply(name)
            #if os(Linux)
            if niceness != 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness) }
            #endif
            loop()
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Runs `body` with this executor preferred (see the type's documentation).
    public func run<T: Sendable, E: Error>(_ body: () async throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withTaskExecutorPreference(self) {
            do throws(E) { return .success(try await body()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// `TaskExecutor`: queues `job` for the thread (or the global executor once shut down).
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        if closed {
            condition.unlock()
            globalConcurrentExecutor.enqueue(ExecutorJob(unowned))
            return
        }
        jobs.append(unowned)
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread end once the jobs already queued have run.
    public func shutdown() {
        condition.lock()
        closed = true
        condition.signal()
        condition.unlock()
    }

    /// Whether the caller runs on this executor's thread (for tests and assertions).
    public var isCurrent: Bool {
        condition.lock()
        defer { condition.unlock() }
        return thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    private func loop() {
        condition.lock()
        thread = pthread_self()
        condition.unlock()
        let me = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while jobs.isEmpty && !closed { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job.runSynchronously(on: me) }
        }
    }
}
