import AppProtocol
import BenchCore
import Foundation

/// One line of a run's merged trace (`trace.jsonl`): when it happened, in monotonic
/// nanoseconds since the run's epoch, and what happened, from which part.
///
/// Every part stamps its events with the host's CLOCK_MONOTONIC (the conditioner
/// through `uv_hrtime`, the origin, license server and harness through
/// `MonotonicClock`, the agent process through its own `MonotonicClock`), so one
/// subtraction of the run's epoch puts them all on one time axis.
public struct TraceEntry: Sendable, Equatable {
    /// Nanoseconds since the run's epoch.
    public var t: UInt64
    public var event: TraceEvent
    /// The scenario whose world saw it, when the run played scenarios concurrently on one
    /// time axis; nil in a trace written before it was recorded (a scenario is then its
    /// time window).
    public var scenario: String?

    /// Creates an entry.
    public init(t: UInt64, _ event: TraceEvent, scenario: String? = nil) {
        self.t = t
        self.event = event
        self.scenario = scenario
    }

    /// Seconds since the run's epoch, for people and reports.
    public var seconds: Double { Double(t) / 1e9 }
}

/// What happened, by the part that saw it.
public enum TraceEvent: Sendable, Equatable {
    /// The link conditioner (interfaces, connections, bytes forwarded, resets).
    case conditioner(ConditionerEvent.Kind)
    /// A request the origin answered (catalog, playlists, segments, keys). The entry's
    /// `t` is when the response ended (`startedAtNanoseconds + durationNanoseconds`
    /// relative to the epoch), so requests order by completion; the start is `t − duration`.
    case origin(OriginRequestRecord)
    /// The license server (requests, issued, renewed and refused licenses); its own
    /// `atNanoseconds` stays absolute (CLOCK_MONOTONIC), the entry's `t` is relative.
    case license(LicenseEvent)
    /// The app: the engine in the agent process, as it reported itself.
    case agent(AppEvent)
    /// The harness playing the OS and the user.
    case harness(HarnessEvent)
}

extension TraceEntry {
    /// `monotonic` (CLOCK_MONOTONIC nanoseconds) since `epoch`; 0 for an instant before it.
    public static func relative(_ monotonic: UInt64, to epoch: UInt64) -> UInt64 {
        monotonic >= epoch ? monotonic - epoch : 0
    }

    /// The entry of an origin request `record`: stamped at its response's end since
    /// `epoch`, its interface named by kind (`interfaces`: a conditioner listener's
    /// `"host:port"` → kind) when the origin could only name it by address. Used by every
    /// collector of a trace (the harness's, the comparison's), so both read the same.
    public static func origin(
        _ record: OriginRequestRecord, epoch: UInt64, interfaces: [String: InterfaceKind]
    ) -> TraceEntry {
        var record = record
        if let name = record.interface, let kind = interfaces[name] { record.interface = kind.rawValue }
        return TraceEntry(t: relative(record.startedAtNanoseconds + record.durationNanoseconds, to: epoch), .origin(record))
    }
}
