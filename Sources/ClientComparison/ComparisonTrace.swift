import BenchCore
import BenchVocabulary
import Foundation
import LinkConditioner
import Synchronization

/// A comparison's merged trace as it grows: what the harness did to each client
/// (`HarnessEvent.clientLaunched`, `.killed`, `.interfaceSet`…), every conditioner's
/// events (as their `EventSink`) and the origin's request log, absorbed after each run.
///
/// Made by `ComparisonRunner`, one per comparison, and handed to each `ClientRunDriver`.
/// Entries are stamped relative to `epoch` (CLOCK_MONOTONIC nanoseconds), as the
/// harness's `TraceCollector` stamps a scenario run's, so `trace.jsonl` reads the same.
final class ComparisonTrace: EventSink, Sendable {
    /// CLOCK_MONOTONIC nanoseconds at trace time 0.
    let epoch: UInt64
    /// The wall clock at `epoch`.
    let epochWallClock: Date
    private let clock: any TraceClock
    private let recorded = Mutex<[TraceEntry]>([])

    /// A trace whose epoch is now.
    init(clock: any TraceClock = MonotonicClock()) {
        self.clock = clock
        epoch = clock.nowNanoseconds
        epochWallClock = Date()
    }

    /// Nanoseconds since the epoch, now.
    var now: UInt64 { TraceEntry.relative(clock.nowNanoseconds, to: epoch) }

    /// Every entry so far, in arrival order.
    var entries: [TraceEntry] { recorded.withLock { $0 } }

    /// Records what the harness did, now.
    func harness(_ event: HarnessEvent) {
        let entry = TraceEntry(t: now, .harness(event))
        recorded.withLock { $0.append(entry) }
    }

    /// `EventSink`: a conditioner event, already relative to `epoch` (each conditioner
    /// is started with this trace's epoch).
    func record(_ event: ConditionerEvent) {
        recorded.withLock { $0.append(TraceEntry(t: event.time, .conditioner(event.kind))) }
    }

    /// Adds the origin's request records (`TraceEntry.origin(_:epoch:interfaces:)`).
    func absorb(origin records: [OriginRequestRecord], interfaces: [String: InterfaceKind]) {
        let entries = records.map { TraceEntry.origin($0, epoch: epoch, interfaces: interfaces) }
        recorded.withLock { $0 += entries }
    }
}
