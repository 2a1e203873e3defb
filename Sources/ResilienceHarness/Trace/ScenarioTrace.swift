import BenchCore
import Foundation

/// A scenario's merged trace with the facts properties and metrics need, derived once.
///
/// Made by the runner (any thread) from the scenario's `[TraceEntry]` after the
/// scenario ended, then handed to every `Property` and to `ScenarioMetrics.measure`.
/// A value: it owns copies of everything and never changes. Entries are put in time
/// order (stable, so events stamped alike keep their order in the file); nothing in a
/// bad trace makes it trap: what cannot be understood is left out of the facts.
public struct ScenarioTrace: Sendable {
    /// The entries, in time order.
    public let entries: [TraceEntry]
    /// The time of the last entry (0 for an empty trace).
    public let end: UInt64
    /// The downloads the harness requested and got a token for, in request order.
    public let downloads: [TracedDownload]
    /// Every token's state changes, requested by the harness or not (e.g. restored).
    public let stateChanges: [String: [TracedStateChange]]
    /// Which interfaces were up when.
    public let interfaces: InterfaceTimeline
    /// When the app was in the background (from `lifecycle(foreground: false)` to the
    /// next `lifecycle(foreground: true)`).
    public let backgroundIntervals: [TraceInterval]
    /// Each kill of the agent with the harness launch that followed it.
    public let restarts: [TracedRestart]
    /// Every harness launch of the agent (the first one included).
    public let launches: [TracedLaunch]
    /// Every launch the agent reported itself: the boundaries of agent processes.
    public let agentLaunches: [TracedLaunch]
    /// Every request the origin logged, in the order of their entries (response ends).
    public let originRequests: [TracedOriginRequest]
    /// Every `requestReceived` at the license server.
    public let licenseRequests: [TracedLicenseRequest]
    /// The license server's log by asset: requests, licenses issued (with when each
    /// reached the app, from the origin's log) and refusals.
    public let licenseServer: LicenseServerLog
    /// `.agent(.licenseAcquired)`, detail = the expiration.
    public let licensesAcquired: [TracedDownloadNote]
    /// `.agent(.licenseFailed)`, detail = the reason.
    public let licenseFailures: [TracedDownloadNote]
    /// Every `.agent(.progress)`, every `.agent(.inspected)`, every `.agent(.segmentStored)`.
    public let progress: [TracedProgress]
    /// See `progress`.
    public let inspections: [TracedInspection]
    /// See `progress`.
    public let segmentsStored: [TracedSegment]
    /// Every segment the agent reported partly stored at a launch (`.agent(.partialSegmentsFound)`):
    /// claims, checked against `diskSnapshots`.
    public let partialSegments: [TracedPartialSegment]
    /// Every `.harness(.diskAtKill)`: the app's disk as the harness read it after a kill.
    public let diskSnapshots: [TracedDiskSnapshot]
    /// Every `.harness(.userAction)` (pause, resume, cancel, delete), refused ones included.
    public let userActions: [TracedUserAction]
    /// Every `.harness(.note)`.
    public let notes: [TracedNote]
    /// Every `bytesForwarded` of the conditioner: bytes that crossed each interface.
    public let linkBytes: [TracedLinkBytes]
    /// Every connection attempt the conditioner saw (`connectionAccepted`,
    /// `connectionRefused`, with the `connectionReset` of an accepted one), in time order.
    public let connectionAttempts: [TracedConnectionAttempt]
    /// Every `.harness(.packageRead)`: what the harness found in the app's packages.
    public let packageReads: [TracedPackageRead]
    /// Every `.harness(.leftAfterRemoval)`: what was left of a cancelled or deleted download.
    public let leftovers: [TracedLeftovers]
    /// Every `.harness(.diskWhilePaused)`, in order.
    public let pausedDisks: [TracedPausedDisk]

    /// Derives the facts of `entries` (any order). `recordedPaths` names the video of
    /// each path a recorded stream serves (`RecordedContent.videoOfPath`): the fixture
    /// videos' own paths say theirs (`/videos/{id}/…`), a recording's do not.
    public init(_ entries: [TraceEntry], recordedPaths: [String: String] = [:]) {
        let sorted = entries.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
        var builder = ScenarioTraceBuilder()
        builder.recordedPaths = recordedPaths
        for entry in sorted { builder.add(entry) }
        self.entries = sorted
        end = sorted.last?.t ?? 0
        stateChanges = builder.stateChanges
        downloads = builder.requests.map { request in
            var download = request
            download.changes = builder.stateChanges[request.token] ?? []
            return download
        }
        interfaces = InterfaceTimeline(events: builder.interfaceEvents)
        backgroundIntervals = builder.backgroundIntervals()
        restarts = builder.restarts()
        launches = builder.launches
        agentLaunches = builder.agentLaunches
        originRequests = builder.originRequests
        licenseRequests = builder.licenseRequests
        licenseServer = builder.licenseLog.finish(
            originRequests: builder.originRequests,
            licensePaths: Set(builder.requests.compactMap { $0.licenseKey.map { OriginPath.normalized($0.licenseURL) } }))
        licensesAcquired = builder.licensesAcquired
        licenseFailures = builder.licenseFailures
        progress = builder.progress
        inspections = builder.inspections
        segmentsStored = builder.segmentsStored
        partialSegments = builder.partialSegments
        diskSnapshots = builder.diskSnapshots
        userActions = builder.userActions
        notes = builder.notes
        linkBytes = builder.linkBytes
        connectionAttempts = builder.connectionAttempts
        packageReads = builder.packageReads
        leftovers = builder.leftovers
        pausedDisks = builder.pausedDisks
    }

    /// The download with `token`, if the harness requested it.
    public func download(_ token: String) -> TracedDownload? {
        downloads.first { $0.token == token }
    }

    /// The spans during which `download` had no interface it may use.
    public func outages(of download: TracedDownload) -> [TraceInterval] {
        interfaces.outages(allowed: download.allowedInterfaces)
    }

    /// Origin requests for `video`'s paths (`/videos/{video}/…`).
    public func originRequests(forVideo video: String) -> [TracedOriginRequest] {
        originRequests.filter { $0.video == video }
    }

    /// Connection attempts on any of `interfaces` at or after `start` and before `end`
    /// (nil: up to the trace's end, inclusive).
    public func connectionAttempts(on interfaces: Set<InterfaceKind>, from start: UInt64, before end: UInt64?)
        -> [TracedConnectionAttempt]
    {
        connectionAttempts.filter { attempt in
            interfaces.contains(attempt.interface) && attempt.t >= start && (end.map { attempt.t < $0 } ?? true)
        }
    }

    /// Segments the agent stored for `token`.
    public func segmentsStored(by token: String) -> [TracedSegment] {
        segmentsStored.filter { $0.download == token }
    }

    /// Inspections of `token`, in time order.
    public func inspections(of token: String) -> [TracedInspection] {
        inspections.filter { $0.inspection.download == token }
    }

    /// The harness's reads of `token`'s package, in time order.
    public func packageReads(of token: String) -> [TracedPackageRead] {
        packageReads.filter { $0.download == token }
    }

    /// Whether the app was in the background at `t`.
    public func isInBackground(at t: UInt64) -> Bool {
        backgroundIntervals.contains { $0.contains(t) }
    }

    /// Kills at or after `start` and up to `end` (inclusive; nil = the trace's end).
    public func kills(from start: UInt64, through end: UInt64?) -> [TracedKill] {
        restarts.map(\.kill).filter { kill in kill.t >= start && (end.map { kill.t <= $0 } ?? true) }
    }
}
