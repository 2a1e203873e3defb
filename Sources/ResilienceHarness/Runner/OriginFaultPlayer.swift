import BenchCore
import FixtureOrigin
import Foundation

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
    /// nil when there are none. Cancel the task to stop: rules still in place stay
    /// until the origin stops.
    static func start(
        _ windows: [OriginFaultWindow], origin: OriginServer, collector: TraceCollector, start: UInt64
    ) -> Task<Void, Never>? {
        guard !windows.isEmpty else { return nil }
        return Task {
            var schedule = OriginFaultSchedule(windows: windows, start: start)
            while let deadline = schedule.nextDeadline(), !Task.isCancelled {
                let now = collector.now
                if deadline > now {
                    do { try await Task.sleep(for: .nanoseconds(Int64(clamping: deadline - now))) } catch { return }
                    continue
                }
                for change in schedule.due(now: now) { apply(change, windows, origin: origin, collector: collector) }
            }
        }
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
