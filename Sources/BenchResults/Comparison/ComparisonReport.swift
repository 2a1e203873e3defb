import Foundation

/// Everything one `bench compare` produced, as its `report.json` keeps it (schema in
/// `docs/report-schema.md`, "Comparison reports"; bump `schemaVersion` on any
/// incompatible change).
public struct ComparisonReport: Sendable, Hashable, Codable {
    /// The version of this format.
    public static let currentSchemaVersion = 1

    public var schemaVersion: Int
    /// Always `comparison`: tells this file from a scenario run's `report.json`.
    public var kind: String
    /// Profile, seed, versions, machine; `profile` gives the base links.
    public var run: RunMetadata
    /// What every client downloaded.
    public var content: ComparisonContentInfo
    /// The base links, in words.
    public var links: [String: String]
    public var settings: FaultSettings
    /// Every client asked for, run or not.
    public var clients: [ClientEntry]
    /// The fault modes, in the order of the table's columns.
    public var modes: [ModeEntry]
    /// One per client and mode, in the order they ran.
    public var runs: [ClientRunResult]
    /// Whether connection attempts were traced (strace), and if not why not.
    public var connectTracing: String

    /// Creates a report in the current schema version.
    public init(
        run: RunMetadata, content: ComparisonContentInfo, links: [String: String], settings: FaultSettings,
        clients: [ClientEntry], modes: [ModeEntry], runs: [ClientRunResult], connectTracing: String
    ) {
        schemaVersion = Self.currentSchemaVersion
        kind = "comparison"
        self.run = run
        self.content = content
        self.links = links
        self.settings = settings
        self.clients = clients
        self.modes = modes
        self.runs = runs
        self.connectTracing = connectTracing
    }

    /// The run of `client` under `mode`, if there was one.
    public func run(client: String, mode: FaultMode) -> ClientRunResult? {
        runs.first { $0.client == client && $0.mode == mode }
    }
}

/// The video every client downloads: one variant, so that every client fetches the same
/// segments and bytes can be compared.
public struct ComparisonContentInfo: Sendable, Hashable, Codable {
    public var video: String
    public var variant: String
    public var bandwidth: Int
    public var durationSeconds: Double
    public var segments: Int
    /// One whole copy of the variant's segments.
    public var bytes: Int
    /// `real` (ffmpeg-made H.264/AAC) or `synthetic` (seeded bytes).
    public var media: String

    /// Creates the description.
    public init(video: String, variant: String, bandwidth: Int, durationSeconds: Double, segments: Int, bytes: Int, media: String) {
        self.video = video
        self.variant = variant
        self.bandwidth = bandwidth
        self.durationSeconds = durationSeconds
        self.segments = segments
        self.bytes = bytes
        self.media = media
    }
}

/// A client of the comparison and whether it could run.
public struct ClientEntry: Sendable, Hashable, Codable {
    public var definition: ClientDefinition
    /// Executables it needs that are not installed (then it did not run).
    public var missing: [String]
    /// Why it did not run, with how to fix that; nil when it ran.
    public var notRunReason: String?

    /// Creates an entry.
    public init(definition: ClientDefinition, missing: [String], notRunReason: String?) {
        self.definition = definition
        self.missing = missing
        self.notRunReason = notRunReason
    }
}

/// A fault mode as run: its seed (the same for every client).
public struct ModeEntry: Sendable, Hashable, Codable {
    public var mode: FaultMode
    public var summary: String
    public var seed: UInt64

    /// Creates an entry.
    public init(mode: FaultMode, summary: String, seed: UInt64) {
        self.mode = mode
        self.summary = summary
        self.seed = seed
    }
}

/// One client under one fault mode.
public struct ClientRunResult: Sendable, Hashable, Codable {
    public var client: String
    public var mode: FaultMode
    public var outcome: ClientOutcome
    /// The command as run (placeholders filled in), for reproducing it by hand.
    public var command: String
    /// Each start of the command: two for kill-rerun.
    public var attempts: [ClientAttempt]
    /// The last attempt's exit status; nil when none ended by itself.
    public var exitStatus: Int32?
    /// Killed at the time limit.
    public var timedOut: Bool
    /// The output judgement; nil when the run did not happen.
    public var output: OutputCheck?
    public var metrics: ClientRunMetrics?
    /// The run's window in `trace.jsonl` (nanoseconds since the comparison's epoch).
    public var startNanoseconds: UInt64
    public var endNanoseconds: UInt64
    /// The last lines the client wrote on stderr.
    public var stderrTail: String
    /// Why the run was not made or could not finish (a harness problem, not the client's).
    public var error: String?

    /// Creates a result.
    public init(
        client: String, mode: FaultMode, outcome: ClientOutcome, command: String, attempts: [ClientAttempt],
        exitStatus: Int32?, timedOut: Bool, output: OutputCheck?, metrics: ClientRunMetrics?, startNanoseconds: UInt64,
        endNanoseconds: UInt64, stderrTail: String, error: String? = nil
    ) {
        self.client = client
        self.mode = mode
        self.outcome = outcome
        self.command = command
        self.attempts = attempts
        self.exitStatus = exitStatus
        self.timedOut = timedOut
        self.output = output
        self.metrics = metrics
        self.startNanoseconds = startNanoseconds
        self.endNanoseconds = endNanoseconds
        self.stderrTail = stderrTail
        self.error = error
    }
}

/// One start of a client's command.
public struct ClientAttempt: Sendable, Hashable, Codable {
    public var pid: Int32
    public var startNanoseconds: UInt64
    public var endNanoseconds: UInt64
    /// The exit status (128 + 9 when killed).
    public var exitStatus: Int32?
    /// Why the harness killed it (`kill-rerun`, `time limit`), nil when it exited by itself.
    public var killed: String?

    /// Creates an attempt.
    public init(pid: Int32, startNanoseconds: UInt64, endNanoseconds: UInt64, exitStatus: Int32?, killed: String?) {
        self.pid = pid
        self.startNanoseconds = startNanoseconds
        self.endNanoseconds = endNanoseconds
        self.exitStatus = exitStatus
        self.killed = killed
    }
}
