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

/// One scenario's load as its half-second progress timer sees it: the most other
/// scenarios playing at one of its ticks, and the latest the timer woke.
struct LoadSample: Sendable {
    private(set) var alongside = 0
    private(set) var lagMaxNanoseconds: UInt64 = 0

    /// Records one tick: the timer was due after `interval` and woke after `elapsed`,
    /// while `playing` scenarios (this one included) were playing.
    mutating func tick(interval: Duration, elapsed: Duration, playing: Int) {
        alongside = max(alongside, playing - 1)
        let late = elapsed - interval
        if late > .zero { lagMaxNanoseconds = max(lagMaxNanoseconds, late.nanoseconds) }
    }

    /// The record the report keeps.
    var load: ScenarioLoad {
        ScenarioLoad(alongside: alongside, timerLagMaxSeconds: Double(lagMaxNanoseconds) / 1e9)
    }
}

/// A `LoadSample` the progress timer's task writes and the scenario reads when the
/// script ends; safe from any task.
final class LoadMeter: Sendable {
    private let state = Mutex(LoadSample())

    /// `LoadSample.tick`.
    func tick(interval: Duration, elapsed: Duration, playing: Int) {
        state.withLock { $0.tick(interval: interval, elapsed: elapsed, playing: playing) }
    }

    /// The sample so far.
    var sample: LoadSample { state.withLock { $0 } }
}
