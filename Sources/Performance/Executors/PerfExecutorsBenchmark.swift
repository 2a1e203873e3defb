import BenchCore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `bench perf executors`: how late each of the process's clocks wakes while Swift's
/// cooperative pool is held, blocked or computing (ARCHITECTURE.md, "Executors").
///
/// Each section holds the pool with twice as many tasks as there are cores for `hold`
/// seconds (they block in a sleep, or spin), and meanwhile four probes sleep 100 ms again
/// and again: a `Task.sleep` on the pool (how the harness kept time before), a
/// `Timekeeper` sleep on the pool, a `Timekeeper` sleep on a `DedicatedExecutor` (how the
/// harness keeps time now), and the `Timekeeper`'s own timer thread. A figure is the
/// worst lateness of its probe; only the dedicated executor's is judged, against the
/// 250 ms a load note names (`ScenarioLoad.stretchingLagSeconds`).
public struct PerfExecutorsBenchmark: Sendable {
    /// How long each section holds the pool.
    public var hold: Double

    /// A benchmark holding the pool `hold` seconds per section.
    public init(hold: Double = 3) {
        self.hold = hold
    }

    /// The first line printed.
    public var headline: String {
        "bench perf executors: clock lateness while Swift's cooperative pool is held (\(PerfFormat.number(hold)) s a section)"
    }

    /// Runs both sections.
    public func run(progress: @escaping @Sendable (PerfProgress) -> Void) async -> PerfRunReport {
        let machine = await PerfMachineLoad.sample()
        progress(.began(machine))
        var sections: [PerfSection] = []
        for (index, holder) in [Holder.blocked, .computing].enumerated() {
            progress(.sectionStarted(index: index + 1, title: holder.title))
            let started = ContinuousClock.now
            var section = PerfSection(id: holder.rawValue, title: holder.title, method: holder.method(hold: hold))
            section.figures = await measure(holding: holder)
            section.seconds = (ContinuousClock.now - started).seconds
            progress(.sectionFinished(section))
            sections.append(section)
        }
        return PerfRunReport(
            command: "bench perf executors", quick: false, rateSeconds: hold, cpus: PerfAffinity.onlineCPUs,
            machine: machine, sections: sections)
    }

    /// How the pool is held.
    enum Holder: String, CaseIterable {
        case blocked, computing

        var title: String {
            switch self {
            case .blocked: "The pool held by tasks blocked in a system call"
            case .computing: "The pool held by tasks that compute"
            }
        }

        func method(hold: Double) -> String {
            let how = self == .blocked
                ? "each blocked in usleep (as a wait on a child, a socket or a semaphore would)"
                : "each spinning on the CPU (as a long hash, a judge or a unit test would)"
            return "\(2 * PerfAffinity.onlineCPUs) tasks on the pool for \(PerfFormat.number(hold)) s, \(how); "
                + "meanwhile each probe sleeps 100 ms again and again and its worst lateness is kept."
        }
    }

    private func measure(holding holder: Holder) async -> [PerfFigure] {
        let executor = DedicatedExecutor(name: "perf-executors")
        defer { executor.shutdown() }
        let until = ContinuousClock.now + .milliseconds(Int64(hold * 1000))
        let interval = Duration.milliseconds(100)
        // The probes start first, each where it keeps time, then the holders take the pool.
        let dedicated = LatenessProbe(), onPool = LatenessProbe(), taskSleep = Mutex<Duration>(.zero)
        let probes = [
            Task(executorPreference: executor) { await Self.probe(until: until) { try await dedicated.tick(interval) } },
            Task.detached { await Self.probe(until: until) { try await onPool.tick(interval) } },
            Task.detached {
                await Self.probe(until: until) {
                    let deadline = ContinuousClock.now + interval
                    try await Task.sleep(until: deadline)
                    let late = ContinuousClock.now - deadline
                    taskSleep.withLock { $0 = max($0, late) }
                }
            },
        ]
        let holders = (0..<2 * PerfAffinity.onlineCPUs).map { _ in
            Task.detached { Self.hold(holder, until: until) }
        }
        for holder in holders { await holder.value }
        for probe in probes { await probe.value }
        let milliseconds = { (seconds: Double) in seconds * 1000 }
        return [
            PerfFigure("Task.sleep on the pool, worst lateness", milliseconds(taskSleep.withLock { $0 }.seconds), unit: "ms"),
            PerfFigure("Timekeeper sleep on the pool, worst lateness", milliseconds(onPool.worst.executor), unit: "ms"),
            PerfFigure("Timekeeper sleep on a dedicated executor (the harness clock), worst lateness",
                       milliseconds(dedicated.worst.executor), unit: "ms",
                       target: .atMost(ScenarioLoadBound.milliseconds, "ms")),
            PerfFigure("the timer thread itself, worst lateness",
                       milliseconds(max(dedicated.worst.timerThread, onPool.worst.timerThread)), unit: "ms"),
        ]
    }

    /// Ticks until `until` (a probe that wakes after it has ended is counted once more).
    private static func probe(until: ContinuousClock.Instant, _ tick: () async throws -> Void) async {
        while ContinuousClock.now < until {
            do { try await tick() } catch { return }
        }
    }

    /// Holds the calling pool thread until `until`: the condition this benchmark measures.
    private static func hold(_ holder: Holder, until: ContinuousClock.Instant) {
        switch holder {
        case .blocked:
            while ContinuousClock.now < until { usleep(50_000) }  // holding the pool is what is measured
        case .computing:
            var x: UInt64 = 1
            while ContinuousClock.now < until {
                for _ in 0..<100_000 { x = x &* 6364136223846793005 &+ 1442695040888963407 }
            }
            if x == 0 { print("") }  // keeps the loop from being optimised away
        }
    }
}

/// The lateness a load note starts at (`ScenarioLoad.stretchingLagSeconds`, in BenchResults).
enum ScenarioLoadBound {
    static let milliseconds = 250.0
}
