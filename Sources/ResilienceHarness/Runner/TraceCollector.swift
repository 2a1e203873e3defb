import BenchCore
import FixtureOrigin
import Foundation
import LinkConditioner
import AppProtocol
import Synchronization

/// The run's merged trace as it grows, and the live view of the app the scenario
/// scripts wait on.
///
/// Every part reports here from its own thread: the conditioner's loop thread (as its
/// `EventSink`), the agent reader thread, the harness task; the origin's and license
/// server's logs are absorbed after each scenario. Entries are stamped relative to
/// `epoch` (CLOCK_MONOTONIC nanoseconds), so all parts share one time axis.
///
/// Each scenario gets its own collector (`scenario(_:)`) on the run's epoch: its entries
/// carry its name, its live view is its own, and scenarios played concurrently never see
/// each other's entries.
public final class TraceCollector: EventSink, Sendable {
    /// CLOCK_MONOTONIC nanoseconds at trace time 0.
    public let epoch: UInt64
    /// The wall clock at `epoch`.
    public let epochWallClock: Date
    /// The scenario every entry is stamped with; nil for a run-wide collector.
    public let scenario: String?
    private let clock: any TraceClock
    private let state = Mutex(State())

    private struct State {
        var entries: [TraceEntry] = []
        var live = LiveState()
        /// When the harness read the app's last acknowledged reply (`acknowledged(_:)`):
        /// no event of the app read after it is stamped earlier.
        var agentFloor: UInt64 = 0
    }

    /// A collector whose epoch is now.
    public init(clock: any TraceClock = MonotonicClock()) {
        self.clock = clock
        epoch = clock.nowNanoseconds
        epochWallClock = Date()
        scenario = nil
    }

    private init(clock: any TraceClock, epoch: UInt64, epochWallClock: Date, scenario: String) {
        self.clock = clock
        self.epoch = epoch
        self.epochWallClock = epochWallClock
        self.scenario = scenario
    }

    /// A new, empty collector for the scenario `name`, on this one's clock and epoch.
    public func scenario(_ name: String) -> TraceCollector {
        TraceCollector(clock: clock, epoch: epoch, epochWallClock: epochWallClock, scenario: name)
    }

    /// Nanoseconds since the epoch, now.
    public var now: UInt64 { relative(clock.nowNanoseconds) }

    /// Every entry so far, in arrival order.
    public var entries: [TraceEntry] { state.withLock { $0.entries } }

    /// How many entries there are (a scenario's window starts at this index).
    public var count: Int { state.withLock { $0.entries.count } }

    /// The entries from index `start` on.
    public func entries(from start: Int) -> [TraceEntry] {
        state.withLock { Array($0.entries[min(start, $0.entries.count)...]) }
    }

    /// A copy of the live view.
    public var live: LiveState { state.withLock { $0.live } }

    /// Records what the harness did, now, or at `t` (nanoseconds since the epoch, from
    /// `now`) when it is written after the fact.
    public func harness(_ event: HarnessEvent, at t: UInt64? = nil) {
        append(TraceEntry(t: t ?? now, .harness(event), scenario: scenario))
    }

    /// Records what the harness learnt from the app's reply, now, as the reply is read:
    /// called on the thread that reads the app's output, in the order of its lines
    /// (`AgentProcess.send`'s `whenAnswered`). Every event the app wrote after that
    /// reply is stamped no earlier than this entry (`agent(_:at:)`): the order of the
    /// app's own output is evidence, its stamps are claims, and an event written after
    /// the app acknowledged a path must never be judged as written before it.
    public func acknowledged(_ event: HarnessEvent) {
        state.withLock { state in
            let t = now
            state.agentFloor = max(state.agentFloor, t)
            state.entries.append(TraceEntry(t: t, .harness(event), scenario: scenario))
        }
    }

    /// Records what the agent reported, stamped by the agent at `monotonic` nanoseconds,
    /// or 1 ns after the last acknowledged reply when that is later (`acknowledged(_:)`):
    /// the event was read after that reply, so it was written after it.
    public func agent(_ event: AppEvent, at monotonic: UInt64) {
        state.withLock { state in
            // Read after the reply, so later than it: 1 ns is the least that orders it so.
            let floor = state.agentFloor > 0 ? state.agentFloor + 1 : 0
            let entry = TraceEntry(t: max(relative(monotonic), floor), .agent(event), scenario: scenario)
            state.entries.append(entry)
            state.live.absorb(event)
        }
    }

    /// `EventSink`: a conditioner event, already relative to `epoch` (the conditioner
    /// is started with this collector's epoch).
    public func record(_ event: ConditionerEvent) {
        append(TraceEntry(t: event.time, .conditioner(event.kind), scenario: scenario))
    }

    /// Adds the origin's request records, each stamped at its response's end, naming
    /// the interface by `interfaces` (a conditioner listener's `"host:port"` → kind)
    /// when the origin could only name it by address.
    public func absorb(origin records: [OriginRequestRecord], interfaces: [String: InterfaceKind]) {
        let entries = records.map { record in
            var entry = TraceEntry.origin(record, epoch: epoch, interfaces: interfaces)
            entry.scenario = scenario
            return entry
        }
        state.withLock { $0.entries += entries }
    }

    /// Adds the license server's events, stamped by their own monotonic time.
    public func absorb(license events: [LicenseEvent]) {
        let entries = events.map { TraceEntry(t: relative($0.atNanoseconds), .license($0), scenario: scenario) }
        state.withLock { $0.entries += entries }
    }

    /// Forgets the live view: a new scenario starts with a new app.
    public func scenarioStarted() {
        state.withLock { $0.live = LiveState() }
    }

    /// Starts a new agent process's view (its states are restored from its index).
    public func agentRelaunched() {
        state.withLock { $0.live.segmentsSinceLaunch = 0 }
    }

    private func append(_ entry: TraceEntry) {
        state.withLock { $0.entries.append(entry) }
    }

    private func relative(_ monotonic: UInt64) -> UInt64 {
        TraceEntry.relative(monotonic, to: epoch)
    }
}

/// What the harness knows of the app right now, from the agent's events: what the
/// scripts' triggers (state, progress, n-th segment) look at.
public struct LiveState: Sendable {
    /// The latest state of each download.
    public var states: [String: AppState] = [:]
    /// The latest fraction of each media selection, by download.
    public var fractions: [String: [String: Double]] = [:]
    /// Segments stored by each download, ever, and by any download since the agent's launch.
    public var segments: [String: Int] = [:]
    public var segmentsSinceLaunch = 0
    /// Downloads the agent reported finished.
    public var finished: Set<String> = []
    /// State changes reported so far (every launch), and for each download the count at
    /// which it last entered each state: a wait on a state the app passed through
    /// between two polls (suspended for 1 ms, then retrying) still sees it.
    public var stateChanges = 0
    public var entered: [String: [AppState: Int]] = [:]

    /// Whether `download` is in one of `states` now, or entered one after the
    /// `since`-th state change.
    public func reached(_ download: String, _ states: [AppState], since: Int) -> Bool {
        if let now = self.states[download], states.contains(now) { return true }
        guard let entered = entered[download] else { return false }
        return states.contains { (entered[$0] ?? 0) > since }
    }

    /// The progress of `download`, as the app reports it: the mean of its media
    /// selections' fractions (0 when none yet).
    public func progress(_ download: String) -> Double {
        let media = fractions[download] ?? [:]
        guard !media.isEmpty else { return 0 }
        return media.values.reduce(0, +) / Double(media.count)
    }

    mutating func absorb(_ event: AppEvent) {
        switch event {
        case let .stateChanged(download, _, to):
            states[download] = to
            stateChanges += 1
            entered[download, default: [:]][to] = stateChanges
            if to == .notDownloaded { fractions[download] = nil }
        case let .progress(download, selection, fraction):
            fractions[download, default: [:]][selection] = fraction
        case let .segmentStored(download, _, _, _, _):
            segments[download, default: 0] += 1
            segmentsSinceLaunch += 1
        case let .finished(download, _):
            finished.insert(download)
        case .launched, .licenseAcquired, .licenseRenewed, .licenseFailed, .evicted, .error, .partialSegmentsFound:
            break
        }
    }
}

extension LiveState {
    /// "2 downloading, 1 downloaded (48 %)", or "starting" before any download: the
    /// progress line `bench` shows while a scenario runs.
    public var summary: String {
        guard !states.isEmpty else { return "starting" }
        var counts: [String: Int] = [:]
        for state in states.values { counts["\(state)", default: 0] += 1 }
        let listed = counts.keys.sorted().map { "\(counts[$0]!) \($0)" }.joined(separator: ", ")
        let total = states.keys.map(progress).reduce(0, +) / Double(states.count)
        return listed + " (\(Int(total * 100)) %)"
    }
}
