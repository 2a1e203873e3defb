import BenchCore
import BenchResults
import Synchronization

/// How many scenarios are playing right now in this process, for each scenario's load
/// record (`ScenarioLoad`): those of one run (`--jobs`) and those of runs played side by
/// side (`bench chaos --jobs`). Safe from any task.
final class RunLoad: Sendable {
    /// The process's count.
    static let process = RunLoad()

    private let playingNow = Mutex(0)

    /// Runs `body` counted as one scenario playing.
    func playing<T: Sendable>(_ body: () async -> T) async -> T {
        playingNow.withLock { $0 += 1 }
        let result = await body()
        playingNow.withLock { $0 -= 1 }
        return result
    }

    /// How many scenarios are playing now.
    var count: Int { playingNow.withLock { $0 } }
}

/// One scenario's load as its probes saw it: the most other scenarios playing at one
/// of its clock's ticks, and the lateness probes (`LatenessProbe`) of its harness clock
/// (its executor) and of the cooperative pool. Safe from any task.
final class LoadMeter: Sendable {
    private let alongside = Mutex(0)
    /// Ticks on the scenario's executor: the harness clock (and the timer thread).
    let harnessClock = LatenessProbe()
    /// Ticks on the cooperative pool.
    let pool = LatenessProbe()

    /// Records how many scenarios (this one included) were playing at a tick.
    func tick(playing: Int) {
        alongside.withLock { $0 = max($0, playing - 1) }
    }

    /// The record the report keeps.
    var load: ScenarioLoad {
        let clock = harnessClock.worst
        let pool = pool.worst
        return ScenarioLoad(
            alongside: alongside.withLock { $0 }, harnessClockLateMaxSeconds: clock.executor,
            timerThreadLateMaxSeconds: max(clock.timerThread, pool.timerThread), poolLateMaxSeconds: pool.executor)
    }
}
