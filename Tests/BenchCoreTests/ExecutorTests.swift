import BenchCore
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

/// The executors that keep time off Swift's cooperative pool (ARCHITECTURE.md,
/// "Executors"): what runs where, and that sleeps and timers end as they should.
@Suite struct ExecutorTests {
    @Test func aSleepOnADedicatedExecutorResumesOnItsThread() async throws {
        let executor = DedicatedExecutor(name: "test-dedicated")
        defer { executor.shutdown() }
        let (before, after, slept) = try await executor.run { () async throws -> (Bool, Bool, Duration) in
            let before = executor.isCurrent
            let started = ContinuousClock.now
            try await Timekeeper.shared.sleep(for: .milliseconds(30))
            return (before, executor.isCurrent, ContinuousClock.now - started)
        }
        #expect(before && after, "the body ran on the executor's thread before and after the sleep")
        #expect(slept >= .milliseconds(30), "the sleep lasted its duration (\(slept))")
        #expect(!executor.isCurrent, "the caller is back on its own executor")
    }

    @Test func aDedicatedExecutorsThreadCarriesItsNameWhereTheOSShowsIt() async throws {
        let executor = DedicatedExecutor(name: "scenario-crash-recovery")
        defer { executor.shutdown() }
        let comm = await executor.run { () async -> String? in
            (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(comm == "scenario-crash-", "cut to the 15 bytes Linux keeps (\(comm ?? "no comm"))")
        #expect(ThreadName.shortened("dz-é-abcdefghijk") == "dz-é-abcdefghi", "whole characters, 15 bytes at most (é is two)")
        #expect(ThreadName.shortened("short") == "short")
    }

    @Test func childTasksAndDefaultActorsRunOnTheDedicatedThread() async {
        let executor = DedicatedExecutor(name: "test-children")
        defer { executor.shutdown() }
        actor Counter {
            var count = 0
            func bump(_ onExecutor: @Sendable () -> Bool) -> Bool {
                count += 1
                return onExecutor()
            }
        }
        let counter = Counter()
        let places = await executor.run { () async -> [Bool] in
            await withTaskGroup(of: Bool.self) { group in
                group.addTask { executor.isCurrent }
                group.addTask { await counter.bump { executor.isCurrent } }
                group.addTask {
                    _ = try? await Timekeeper.shared.sleep(for: .milliseconds(5))
                    return executor.isCurrent
                }
                var places: [Bool] = []
                for await place in group { places.append(place) }
                return places
            }
        }
        #expect(places == [true, true, true])
    }

    @Test func aCancelledSleepThrowsAtOnce() async {
        let sleeper = Task { try await Timekeeper.shared.sleep(for: .seconds(600)) }
        sleeper.cancel()
        let result = await sleeper.result
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test func aSleepCancelledBeforeItStartsNeverSuspends() async {
        let result = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Timekeeper.shared.sleep(for: .seconds(600))
        }.result
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test func aCancelledTimerNeverFiresAndAnotherDoes() async {
        // The timekeeper's queue is held (by a first callback, due at once) until the
        // cancel: on a busy machine the test's thread may otherwise be descheduled past
        // the dropped timer's deadline, and a timer that has begun cannot be dropped.
        let timekeeper = Timekeeper(label: "test.cancelled-timer")
        let held = DispatchSemaphore(value: 0)
        let fired = Mutex<[String]>([])
        // blocking-ok: holds this test's own timekeeper, on purpose, until the cancel below
        timekeeper.schedule(after: .zero) { held.wait() }
        let dropped = timekeeper.schedule(after: .milliseconds(20)) { fired.withLock { $0.append("dropped") } }
        dropped.cancel()
        held.signal()
        timekeeper.schedule(after: .milliseconds(40)) { fired.withLock { $0.append("kept") } }
        await eventually("the kept timer firing") { fired.withLock { $0.contains("kept") } }
        #expect(fired.withLock { $0 } == ["kept"], "the cancelled timer (due earlier) never fired")
    }

    @Test func timersFireInTheOrderOfTheirDeadlines() async {
        // One base instant for the three deadlines, and the queue held until all three are
        // scheduled, so a test thread descheduled between two calls does not reorder them.
        let timekeeper = Timekeeper(label: "test.timer-order")
        let held = DispatchSemaphore(value: 0)
        // blocking-ok: holds this test's own timekeeper, on purpose, until the timers are scheduled
        timekeeper.schedule(after: .zero) { held.wait() }
        let order = Mutex<[Int]>([])
        let base = ContinuousClock.now
        for (index, milliseconds) in [60, 20, 40].enumerated() {
            timekeeper.schedule(at: base + .milliseconds(Int64(milliseconds))) { order.withLock { $0.append(index) } }
        }
        held.signal()
        await eventually("all three timers") { order.withLock { $0.count } == 3 }
        #expect(order.withLock { $0 } == [1, 2, 0])
    }

    @Test func offPoolRunsBlockingWorkConcurrentlyBeyondTheCoreCount() async {
        // Each item blocks until every item has begun: it completes only if the queue gives
        // each one a thread of its own, however few cores there are. Forty past the core
        // count: a pool that only grows by a thread a second while all are blocked (a
        // concurrent Dispatch queue on Linux) needs over 20 s, past the 10 s bound.
        let count = ProcessInfo.processInfo.activeProcessorCount + 40
        let arrived = DispatchGroup()
        for _ in 0..<count { arrived.enter() }
        let waits = await withTaskGroup(of: DispatchTimeoutResult.self) { group in
            for _ in 0..<count {
                group.addTask {
                    await OffPool.run {
                        arrived.leave()
                        return arrived.wait(timeout: .now() + 10)
                    }
                }
            }
            var results: [DispatchTimeoutResult] = []
            for await result in group { results.append(result) }
            return results
        }
        #expect(waits.count == count && waits.allSatisfy { $0 == .success })
    }

    @Test func offPoolReturnsTheValueAndTheTypedError() async {
        struct Refused: Error, Equatable {}
        #expect(await OffPool.run { 6 * 7 } == 42)
        await #expect(throws: Refused.self) {
            try await OffPool.run { () throws(Refused) -> Int in throw Refused() }
        }
    }

    @Test func aJobAfterShutdownStillRuns() async throws {
        let executor = DedicatedExecutor(name: "test-shutdown")
        let value = try await executor.run { () async throws -> Int in
            executor.shutdown()
            // The thread may end now; the sleeper's resumption still runs (on the global executor).
            try await Timekeeper.shared.sleep(for: .milliseconds(10))
            return 7
        }
        #expect(value == 7)
    }

    @Test func aProbeRecordsTheWorstLatenessOfBothClocks() async throws {
        let probe = LatenessProbe()
        #expect(probe.worst == LatenessProbe.Worst())
        probe.record(timerThread: .milliseconds(3), executor: .milliseconds(40))
        probe.record(timerThread: .milliseconds(1), executor: .milliseconds(-5))
        #expect(probe.worst.timerThread == 0.003 && probe.worst.executor == 0.040)
        let slept = try await probe.tick(.milliseconds(10))
        #expect(slept >= .milliseconds(10))
        #expect(probe.worst.executor >= 0.040, "a tick never lowers the worst figure")
    }
}
