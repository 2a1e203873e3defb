import Foundation

/// Everything one `bench` run produced, as `report.json` keeps it (schema in
/// `docs/report-schema.md`; bump `schemaVersion` on any incompatible change).
public struct RunReport: Sendable, Hashable, Codable {
    /// The version of this format.
    public static let currentSchemaVersion = 1

    public var schemaVersion: Int
    public var run: RunMetadata
    public var scenarios: [ScenarioResult]

    /// Creates a report in the current schema version.
    public init(run: RunMetadata, scenarios: [ScenarioResult]) {
        schemaVersion = Self.currentSchemaVersion
        self.run = run
        self.scenarios = scenarios
    }

    /// Whether every verdict of every scenario holds (not-applicable ones count as holding).
    public var passed: Bool { scenarios.allSatisfy(\.passed) }
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

    /// Creates metadata.
    public init(
        profile: String, profilePath: String, seed: UInt64, startedAt: Date, durationSeconds: Double,
        versions: [String: String], machine: [String: String]
    ) {
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

    /// Creates a result.
    public init(
        name: String, summary: String, verdicts: [Verdict], metrics: ScenarioMetrics, startNanoseconds: UInt64,
        endNanoseconds: UInt64, error: String? = nil, preconditions: [PreconditionResult] = []
    ) {
        self.preconditions = preconditions
        self.name = name
        self.summary = summary
        self.verdicts = verdicts
        self.metrics = metrics
        self.startNanoseconds = startNanoseconds
        self.endNanoseconds = endNanoseconds
        self.error = error
    }

    /// No verdict failed, every precondition was met and the scenario ran to its end.
    public var passed: Bool {
        error == nil && !verdicts.contains(where: \.failed) && preconditions.allSatisfy(\.met)
    }

    /// The properties this run of the scenario exercised: those whose verdict applied.
    public var exercisedProperties: [String] {
        verdicts.filter { $0.outcome != .notApplicable }.map(\.property)
    }

    private enum CodingKeys: String, CodingKey {
        case name, summary, verdicts, metrics, startNanoseconds, endNanoseconds, error, preconditions
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        summary = try c.decode(String.self, forKey: .summary)
        verdicts = try c.decode([Verdict].self, forKey: .verdicts)
        metrics = try c.decode(ScenarioMetrics.self, forKey: .metrics)
        startNanoseconds = try c.decode(UInt64.self, forKey: .startNanoseconds)
        endNanoseconds = try c.decode(UInt64.self, forKey: .endNanoseconds)
        error = try c.decodeIfPresent(String.self, forKey: .error)
        // Reports written before preconditions existed have none.
        preconditions = try c.decodeIfPresent([PreconditionResult].self, forKey: .preconditions) ?? []
    }
}
