import BenchCore
import FixtureOrigin
import Foundation
import Synchronization

/// When each window of a profile's `origin:` section opens and closes, on the run's
/// clock. A pure state machine: the driver (`OriginFaultPlayer`) sleeps until
/// `nextDeadline()`, takes what `due(now:)` returns and applies it in order. At one
/// instant windows close before others open, so that back-to-back windows never overlap.
struct OriginFaultSchedule: Sendable {
    /// A window (by its index in the profile's `origin:` list) opens or closes.
    enum Change: Sendable, Hashable {
        case open(Int)
        case close(Int)
    }

    /// Nanoseconds (the trace's clock) at which the profile's offset zero falls.
    let start: UInt64
    private let changes: [(t: UInt64, change: Change)]
    private var next = 0

    init(windows: [OriginFaultWindow], start: UInt64) {
        self.start = start
        func instant(_ offset: Duration) -> UInt64 {
            let (sum, overflow) = start.addingReportingOverflow(offset.nanoseconds)
            return overflow ? .max : sum
        }
        var changes: [(t: UInt64, order: Int, change: Change)] = []
        for (index, window) in windows.enumerated() {
            changes.append((instant(window.at), 1, .open(index)))
            changes.append((instant(window.end), 0, .close(index)))
        }
        self.changes = changes.enumerated()
            .sorted { ($0.element.t, $0.element.order, $0.offset) < ($1.element.t, $1.element.order, $1.offset) }
            .map { ($0.element.t, $0.element.change) }
    }

    /// The changes due at or before `now` not returned before, in order.
    mutating func due(now: UInt64) -> [Change] {
        var result: [Change] = []
        while next < changes.count, changes[next].t <= now {
            result.append(changes[next].change)
            next += 1
        }
        return result
    }

    /// When the next change is due; nil once every window has closed.
    func nextDeadline() -> UInt64? {
        next < changes.count ? changes[next].t : nil
    }
}

/// Plays a profile's origin fault windows on one scenario's origin: as a window opens,
/// the origin gets its fault rule (`FaultRule(window:id:)`, id `profile-origin-N`),
/// first, before the scenario's own rules (where two open windows match a path, the
/// one opened last wins); as it closes the rule goes. Each is recorded in the trace as
/// `.harness(.originFaultBegan)` and `.harness(.originFaultEnded)`. A response already
/// under way when its window closes keeps its fault (a stall hangs on).
enum OriginFaultPlayer {
    /// The id of window `index`'s rule in the origin's log (`faultRuleID`).
    static func ruleID(_ index: Int) -> String { "profile-origin-\(index)" }

    /// Starts playing `windows` from trace time `start` (the profile's offset zero);
    /// nil when there are none. Each change is applied by a `Timekeeper` timer at its
    /// instant (no task, so nothing waits for the cooperative pool). Cancel the playback
    /// to stop: rules still in place stay until the origin stops.
    static func start(
        _ windows: [OriginFaultWindow], origin: OriginServer, collector: TraceCollector, start: UInt64
    ) -> OriginFaultPlayback? {
        guard !windows.isEmpty else { return nil }
        let playback = OriginFaultPlayback(schedule: OriginFaultSchedule(windows: windows, start: start))
        playback.step { change in apply(change, windows, origin: origin, collector: collector) } now: { collector.now }
        return playback
    }

    private static func apply(
        _ change: OriginFaultSchedule.Change, _ windows: [OriginFaultWindow], origin: OriginServer, collector: TraceCollector
    ) {
        switch change {
        case .open(let index):
            let window = windows[index]
            let id = ruleID(index)
            do {
                try origin.updateFaultRules { (rules: inout FaultRuleSet) throws(FaultRuleSetError) in
                    try rules.add(FaultRule(window: window, id: id), at: 0)
                }
                collector.harness(.originFaultBegan(
                    index: index, label: window.label, path: window.path, fault: window.fault.summary, rule: id))
            } catch {
                collector.harness(.note("origin fault \(index) could not begin: \(error)"))
            }
        case .close(let index):
            let id = ruleID(index)
            _ = try? origin.updateFaultRules { (rules: inout FaultRuleSet) throws(FaultRuleSetError) in rules.remove(id: id) }
            collector.harness(.originFaultEnded(index: index, label: windows[index].label, rule: id))
        }
    }
}

/// A playing `OriginFaultSchedule`: a chain of `Timekeeper` timers, one at each change's
/// instant, each applying what is due and arming the next. Safe from any thread.
final class OriginFaultPlayback: Sendable {
    private struct State {
        var schedule: OriginFaultSchedule
        var timer: Timekeeper.Timer?
        var cancelled = false
    }

    private let state: Mutex<State>

    init(schedule: OriginFaultSchedule) {
        state = Mutex(State(schedule: schedule))
    }

    /// Applies the changes due at `now()` and arms a timer for the next one.
    func step(
        _ apply: @escaping @Sendable (OriginFaultSchedule.Change) -> Void, now: @escaping @Sendable () -> UInt64
    ) {
        let t = now()
        let (due, next) = state.withLock { state -> ([OriginFaultSchedule.Change], UInt64?) in
            guard !state.cancelled else { return ([], nil) }
            return (state.schedule.due(now: t), state.schedule.nextDeadline())
        }
        due.forEach(apply)
        guard let next else { return }
        let timer = Timekeeper.shared.schedule(after: .nanos(next &- min(next, t))) { [self] in step(apply, now: now) }
        let cancelled = state.withLock { state in
            state.timer = timer
            return state.cancelled
        }
        if cancelled { timer.cancel() }
    }

    /// Stops the playback: no change after this one applies.
    func cancel() {
        let timer = state.withLock { state in
            state.cancelled = true
            return state.timer
        }
        timer?.cancel()
    }
}
