import BenchCore
import FixtureOrigin
import Foundation
import AppProtocol
import LinkConditioner

// The small facts `ScenarioTrace` derives from a merged trace, each with the trace
// time (`t`, nanoseconds since the run's epoch) it happened at. Plain values: made
// once when the view is built, read by properties and metrics on any thread.

/// One `stateChanged` the agent reported for a download.
public struct TracedStateChange: Sendable, Hashable {
    public var t: UInt64
    public var from: AppState
    public var to: AppState
}

/// A span of the trace: from `start` until `end` (exclusive), or until the trace
/// ended when `end` is nil. The causes say, for evidence, what opened and closed it.
public struct TraceInterval: Sendable, Hashable {
    public var start: UInt64
    public var end: UInt64?
    public var startCause: String
    public var endCause: String?

    /// Whether `t` falls inside the span.
    public func contains(_ t: UInt64) -> Bool {
        t >= start && (end.map { t < $0 } ?? true)
    }

    /// How long it lasted, counting an open span until `traceEnd`.
    public func length(traceEnd: UInt64) -> UInt64 {
        (end ?? max(traceEnd, start)) - start
    }
}

/// A request the origin answered, placed on the trace's time axis.
///
/// The origin writes its record when the response ends, so the entry's `t` is taken
/// as the end and `start` as `t - durationNanoseconds` (saturating at 0).
public struct TracedOriginRequest: Sendable, Hashable {
    public var t: UInt64
    public var start: UInt64
    public var record: OriginRequestRecord
    /// The record's path without query or fragment.
    public var path: String
    /// When the response began (its head written: `start` + the time to first byte),
    /// no later than `t`; `t` when the origin did not say. A claim of having its bytes
    /// made after this, of a response that then completed, is not contradicted by the
    /// origin's log: the origin stamps `t` when its write completes, and a fast app may
    /// read, store and say so before that stamp.
    public var responseBegan: UInt64 {
        record.timeToFirstByteNanoseconds.map { min(t, start &+ $0) } ?? t
    }
    /// The video id of a `/videos/{video}/…` path, else nil.
    public var video: String?
    /// When the conditioner read the request from the app (`appSent` on the connection
    /// the PROXY header names, the last one at or before `start`), before any link
    /// delay, loss or blackhole held it: the app had sent it by then. Nil when the trace
    /// cannot say (no PROXY header, no such event).
    public var sentAt: UInt64? = nil

    /// By when the app had sent the request, as causality allows: when the conditioner
    /// read it, else (nothing recorded) when it reached the origin. Rules that ask "did
    /// the app ask after X" use this, never the origin's stamp alone: a slow link (or a
    /// blackhole holding the request) delivers to the origin seconds after the app asked.
    public var sentBy: UInt64 { sentAt.map { min($0, start) } ?? start }
}

/// A segment the agent committed (`.agent(.segmentStored)`).
public struct TracedSegment: Sendable, Hashable {
    public var t: UInt64
    public var download: String
    public var stream: String
    public var index: Int
    public var bytes: Int64
    /// The origin path it came from, without query.
    public var path: String
}

/// The harness killed the agent (`.harness(.killed)`).
public struct TracedKill: Sendable, Hashable {
    public var t: UInt64
    public var pid: Int32
    public var reason: String
}

/// An agent launch, as the harness (`.harness(.launched)`) or the agent itself
/// (`.agent(.launched)`) reported it.
public struct TracedLaunch: Sendable, Hashable {
    /// When the harness started the process (for `.agent(.launched)`, when the app says it started).
    public var t: UInt64
    public var pid: Int32
    public var after: RelaunchKind
    /// When the harness read the app's answer to `hello` (`.harness(.helloAnswered)`): the
    /// app was up from then on. Nil when the trace has no answer after this launch.
    public var answered: UInt64? = nil
}

/// A kill and the harness launch that followed it (nil when none did before the next
/// kill or the trace's end).
public struct TracedRestart: Sendable, Hashable {
    public var kill: TracedKill
    public var launch: TracedLaunch?
}

/// One `.agent(.progress)` report.
public struct TracedProgress: Sendable, Hashable {
    public var t: UInt64
    public var download: String
    public var selection: String
    public var fraction: Double
}

/// One `.agent(.inspected)` answer.
public struct TracedInspection: Sendable, Hashable {
    public var t: UInt64
    public var inspection: AppInspection
}

/// A `requestReceived` at the license server.
public struct TracedLicenseRequest: Sendable, Hashable {
    public var t: UInt64
    public var endpoint: LicenseEndpoint
    public var assetID: String?
    /// The license server's own background flag at that instant.
    public var appInBackground: Bool
    /// By when the app had sent it: the latest `sentAt` of the origin requests (not for
    /// a video) under way when it reached the server, nil when one of them has none
    /// (`LicenseServerLog.Builder.finish`). A request sent in the foreground may reach
    /// the server after the background began, held by the link.
    public var sentAt: UInt64? = nil
}

/// An agent event about one download that carries only a detail string
/// (`licenseAcquired`'s expiration, `licenseFailed`'s reason).
public struct TracedDownloadNote: Sendable, Hashable {
    public var t: UInt64
    public var download: String
    public var detail: String
}

/// A user action other than a request (`.harness(.userAction)`).
public struct TracedUserAction: Sendable, Hashable {
    public var t: UInt64
    public var action: String
    public var download: String
    public var error: String?
}

/// A harness note (`.harness(.note)`).
public struct TracedNote: Sendable, Hashable {
    public var t: UInt64
    public var text: String
}

/// A segment the agent says it found partly stored when it launched
/// (`.agent(.partialSegmentsFound)`): a claim, which `crash-recovery` checks against
/// the harness's own disk snapshot of the kill before.
public struct TracedPartialSegment: Sendable, Hashable {
    /// When the agent reported it (right after its launch).
    public var t: UInt64
    public var download: String
    public var stream: String
    public var index: Int
    /// The origin path, without query.
    public var path: String
    /// The bytes kept in its `.part` file.
    public var bytes: Int64
    /// Its own range of `path` (`bytes=a-b`), nil for a whole resource.
    public var byteRange: String?
}

/// Bytes the conditioner forwarded on one connection since its previous report
/// (`bytesForwarded`): what crossed an interface, whoever asked for it.
public struct TracedLinkBytes: Sendable, Hashable {
    public var t: UInt64
    /// The conditioner's id of the connection.
    public var connection: ConnectionID
    public var interface: InterfaceKind
    public var direction: Direction
    public var bytes: Int
}

/// A connection the app tried to open through the conditioner, as the conditioner saw
/// it: `connectionAccepted` (the interface was up, or blackholed: accepted and held) or
/// `connectionRefused` (a down interface in reset or refuse mode accepted it and reset
/// it at once; only with `ConditionerConfiguration.countsRefusals`, which the harness
/// sets). The conditioner cannot tell which download an attempt was for.
public struct TracedConnectionAttempt: Sendable, Hashable {
    public enum Outcome: String, Sendable, Hashable {
        case accepted
        case refused
    }

    /// When the conditioner accepted (or refused) it.
    public var t: UInt64
    public var interface: InterfaceKind
    public var outcome: Outcome
    /// The conditioner's id of an accepted connection; nil for a refused one.
    public var connection: ConnectionID?
    /// The client's `host:port`.
    public var peer: String
    /// When the conditioner reset an accepted connection (`connectionReset`: the
    /// interface went down in reset mode, a fault, an upstream failure); nil if it did not.
    public var resetAt: UInt64?
}

/// The harness read an app's package itself (`.harness(.packageRead)`).
public struct TracedPackageRead: Sendable, Hashable {
    /// When the read began.
    public var t: UInt64
    public var download: String
    /// The master playlist read; nil when the app named none (see `found.problems`).
    public var master: String?
    public var cause: PackageReadCause
    public var found: PackageFindings
}

/// What the harness found left of a download after the user cancelled or deleted it
/// (`.harness(.leftAfterRemoval)`), at the inspection that followed.
/// The app's storage as the harness read it while the user had a download paused
/// (`.harness(.diskWhilePaused)`): what it held of the download's video, by content.
public struct TracedPausedDisk: Sendable, Hashable {
    public var t: UInt64
    public var download: String
    /// Origin paths of its video some file holds whole.
    public var stored: Set<String>
    /// Origin paths of its video some file holds a part of, with the bytes held.
    public var partial: [String: Int64]

    public init(t: UInt64, download: String, stored: Set<String>, partial: [String: Int64]) {
        self.t = t
        self.download = download
        self.stored = stored
        self.partial = partial
    }
}

public struct TracedLeftovers: Sendable, Hashable {
    public var t: UInt64
    public var download: String
    /// Origin paths of its video some file of the app's storage holds whole.
    public var stored: [String]
    /// Origin paths of its video some file holds a part of, with the bytes held.
    public var partial: [String: Int64]
    /// Files still under its package directory.
    public var packageFiles: [String]

    /// Nothing of it is left.
    public var isClean: Bool { stored.isEmpty && partial.isEmpty && packageFiles.isEmpty }
}
