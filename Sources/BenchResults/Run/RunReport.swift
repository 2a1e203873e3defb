import Foundation

/// Everything one `bench` run produced, as `report.json` keeps it (schema in
/// `docs/report-schema.md`; bump `schemaVersion` on any incompatible change).
public struct RunReport: Sendable, Hashable, Codable {
    /// The version of this format.
    public static let currentSchemaVersion = 1

    public var schemaVersion: Int
    public var run: RunMetadata
    public var scenarios: [ScenarioResult]
    /// Which situations of the model (docs/situations.md) the run created; nil in a report
    /// written before coverage was measured.
    public var coverage: RunCoverage?

    /// Creates a report in the current schema version.
    public init(run: RunMetadata, scenarios: [ScenarioResult], coverage: RunCoverage? = nil) {
        schemaVersion = Self.currentSchemaVersion
        self.run = run
        self.scenarios = scenarios
        self.coverage = coverage
    }

    /// Whether every verdict of every scenario played holds (not-applicable ones count as
    /// holding) and at least one scenario was played: an unsupported scenario neither
    /// passes nor fails the run, but a run with nothing but unsupported ones fails.
    public var passed: Bool {
        scenarios.allSatisfy { $0.passed || $0.unsupported != nil } && scenarios.contains { $0.unsupported == nil }
    }

    /// The scenarios not played because the app lacks a capability they need.
    public var unsupportedScenarios: [ScenarioResult] { scenarios.filter { $0.unsupported != nil } }
}

/// Where and how a run ran.
public struct RunMetadata: Sendable, Hashable, Codable {
    /// The profile's name and the path it was read from.
    public var profile: String
    public var profilePath: String
    public var seed: UInt64
    /// When the run started (wall clock, for people) and how long it took.
    public var startedAt: Date
    public var durationSeconds: Double
    /// Deadzone's version, the Swift compiler's, and the libuv the conditioner linked.
    public var versions: [String: String]
    /// Host facts: OS, kernel, CPUs, memory.
    public var machine: [String: String]
    /// The app under test as the run named it (`deadzone`, `deadzone --misbehave X`, or
    /// the `--agent` command line); nil in a report written before it was recorded.
    public var agent: String?
    /// The app's name and version from its hello (`deadzone 0.5.0`), when it answered one.
    public var app: String?
    /// The most scenarios played at the same time (`--jobs`); nil in a report written
    /// before it was recorded, which played them one after another.
    public var jobs: Int?
    /// The share (0…1) of the machine's CPU that other processes used while the run
    /// played (`CPUSample`: the cores' busy time, less the bench's own and its reaped
    /// children's). A timing metric measured while others took much of the machine says
    /// as much about them as about the app. nil where it could not be measured, and in a
    /// report written before it was recorded.
    public var othersCPUShare: Double?
    /// Which part of a sharded whole this run played (`--shard i/n`); nil for a whole run.
    public var shard: ShardRecord?
    /// The shards a merged report was joined from (`bench merge`), in shard order; nil
    /// for a report a single run wrote.
    public var mergedFrom: [MergedShard]?
    /// `true` when the scenarios' origins and license servers served HTTPS with a
    /// certificate of a CA made for the run (`--https`; its certificate is `ca.pem` beside
    /// the report); nil for plain HTTP.
    public var https: Bool?
    /// The fixture videos whose scenarios played on a recorded stream instead (`--video
    /// FIXTURE=RECORDED`): each fixture's id to the recorded stream's; nil when none.
    public var videos: [String: String]?

    /// Creates metadata.
    public init(
        profile: String, profilePath: String, seed: UInt64, startedAt: Date, durationSeconds: Double,
        versions: [String: String], machine: [String: String], agent: String? = nil, app: String? = nil, jobs: Int? = nil,
        https: Bool? = nil
    ) {
        self.https = https
        self.jobs = jobs
        self.agent = agent
        self.app = app
        self.profile = profile
        self.profilePath = profilePath
        self.seed = seed
        self.startedAt = startedAt
        self.durationSeconds = durationSeconds
        self.versions = versions
        self.machine = machine
    }
}

/// One scenario's outcome: its verdicts, its metrics, and the trace window it covers.
public struct ScenarioResult: Sendable, Hashable, Codable {
    /// Stable name, e.g. `auto-suspend-on-disconnect`.
    public var name: String
    /// One sentence: what the scenario does and asserts.
    public var summary: String
    /// The properties the scenario is there to prove (its file's `asserts`): an unmet
    /// precondition leaves exactly these unproven. nil in a report written before it was
    /// recorded (every property is then taken as asserted).
    public var asserts: [String]?
    public var verdicts: [Verdict]
    public var metrics: ScenarioMetrics
    /// The scenario's span in the run's trace (nanoseconds since the run's epoch).
    public var startNanoseconds: UInt64
    public var endNanoseconds: UInt64
    /// Set when the scenario could not run to its end (a harness error, the time
    /// limit); its verdicts then say what was established before.
    public var error: String?
    /// What the scenario had to make happen, and whether it did (empty for a scenario
    /// with none, e.g. one that plays the profile's own timeline).
    public var preconditions: [PreconditionResult]
    /// The capabilities the scenario needs that the app did not declare in its hello: the
    /// scenario was not played (no verdicts) and is reported `unsupported: <capability>`,
    /// never passed. nil when it was played.
    public var unsupported: [String]?
    /// How loaded the machine was while it played; nil in a report written before it was
    /// recorded, or for a scenario that never started.
    public var load: ScenarioLoad?
    /// The situations it created (docs/situations.md); nil when it was not played, or in a
    /// report written before coverage was measured.
    public var coverage: ScenarioCoverage?
    /// What each launch of the app wrote on its stderr, in launch order (nil in a report
    /// written before it was kept; a launch that wrote nothing is left out).
    public var stderr: [LaunchLog]?
    /// Each copy of the app's storage the harness had its sync command make before a read
    /// (`--storage-sync`), in order; nil when the storage was read in place.
    public var storageSyncs: [StorageSync]?
    /// The downloads the harness requested, token and video, so that the console, HTML
    /// and JUnit name each as the timeline does (`namingDownloads`); nil in a report
    /// written before it was recorded, or when none was requested.
    public var downloads: [DownloadName]?

    /// Creates a result.
    public init(
        name: String, summary: String, verdicts: [Verdict], metrics: ScenarioMetrics, startNanoseconds: UInt64,
        endNanoseconds: UInt64, error: String? = nil, preconditions: [PreconditionResult] = [],
        unsupported: [String]? = nil, load: ScenarioLoad? = nil, coverage: ScenarioCoverage? = nil,
        stderr: [LaunchLog]? = nil, asserts: [String]? = nil, storageSyncs: [StorageSync]? = nil,
        downloads: [DownloadName]? = nil
    ) {
        self.downloads = downloads
        self.storageSyncs = storageSyncs
        self.asserts = asserts
        self.stderr = stderr
        self.coverage = coverage
        self.load = load
        self.unsupported = unsupported
        self.preconditions = preconditions
        self.name = name
        self.summary = summary
        self.verdicts = verdicts
        self.metrics = metrics
        self.startNanoseconds = startNanoseconds
        self.endNanoseconds = endNanoseconds
        self.error = error
    }

    /// The scenario was played, no verdict failed, every precondition was met and it
    /// ran to its end. An unsupported scenario never passed.
    public var passed: Bool {
        unsupported == nil && error == nil && !verdicts.contains(where: \.failed) && preconditions.allSatisfy(\.met)
    }

    /// `unsupported: licenses, pause` for a scenario not played; nil for one played.
    public var unsupportedText: String? {
        unsupported.map { "unsupported: " + $0.joined(separator: ", ") }
    }

    /// The properties whose verdict failed, in verdict order.
    public var failedProperties: [String] { verdicts.filter(\.failed).map(\.property) }

    /// The properties this run of the scenario exercised: those whose verdict applied.
    public var exercisedProperties: [String] {
        verdicts.filter { $0.outcome != .notApplicable }.map(\.property)
    }

    private enum CodingKeys: String, CodingKey {
        case name, summary, verdicts, metrics, startNanoseconds, endNanoseconds, error, preconditions, unsupported, load
        case coverage, stderr, asserts, storageSyncs, downloads
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        summary = try c.decode(String.self, forKey: .summary)
        asserts = try c.decodeIfPresent([String].self, forKey: .asserts)
        verdicts = try c.decode([Verdict].self, forKey: .verdicts)
        metrics = try c.decode(ScenarioMetrics.self, forKey: .metrics)
        startNanoseconds = try c.decode(UInt64.self, forKey: .startNanoseconds)
        endNanoseconds = try c.decode(UInt64.self, forKey: .endNanoseconds)
        error = try c.decodeIfPresent(String.self, forKey: .error)
        // Reports written before preconditions existed have none.
        preconditions = try c.decodeIfPresent([PreconditionResult].self, forKey: .preconditions) ?? []
        unsupported = try c.decodeIfPresent([String].self, forKey: .unsupported)
        load = try c.decodeIfPresent(ScenarioLoad.self, forKey: .load)
        coverage = try c.decodeIfPresent(ScenarioCoverage.self, forKey: .coverage)
        stderr = try c.decodeIfPresent([LaunchLog].self, forKey: .stderr)
        storageSyncs = try c.decodeIfPresent([StorageSync].self, forKey: .storageSyncs)
        downloads = try c.decodeIfPresent([DownloadName].self, forKey: .downloads)
    }
}

/// A copy of the app's storage made by the `--storage-sync` command before a read.
public struct StorageSync: Sendable, Hashable, Codable {
    /// When the read was asked for (nanoseconds since the run's epoch).
    public var t: UInt64
    /// The read it preceded: `kill`, `paused`, `removal`, `downloaded`, `inspected`.
    public var read: String
    /// How long the command ran.
    public var seconds: Double
    /// How it failed (the read was then not made); nil when it succeeded.
    public var error: String?

    /// A sync.
    public init(t: UInt64, read: String, seconds: Double, error: String? = nil) {
        self.t = t
        self.read = read
        self.seconds = seconds
        self.error = error
    }
}
