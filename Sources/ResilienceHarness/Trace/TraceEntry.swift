import AppProtocol
import BenchCore
import FixtureOrigin
import Foundation
import LinkConditioner

/// One line of a run's merged trace (`trace.jsonl`): when it happened, in monotonic
/// nanoseconds since the run's epoch, and what happened, from which part.
///
/// Every part stamps its events with the host's CLOCK_MONOTONIC (the conditioner
/// through `uv_hrtime`, the origin, license server and harness through
/// `MonotonicClock`, the agent process through its own `MonotonicClock`), so one
/// subtraction of the run's epoch puts them all on one time axis.
public struct TraceEntry: Sendable, Equatable, Codable {
    /// Nanoseconds since the run's epoch.
    public var t: UInt64
    public var event: TraceEvent

    /// Creates an entry.
    public init(t: UInt64, _ event: TraceEvent) {
        self.t = t
        self.event = event
    }

    /// Seconds since the run's epoch, for people and reports.
    public var seconds: Double { Double(t) / 1e9 }
}

/// What happened, by the part that saw it.
public enum TraceEvent: Sendable, Equatable, Codable {
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
