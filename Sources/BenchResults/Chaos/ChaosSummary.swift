import Foundation

/// `chaos.json` in a chaos campaign's directory: every input played, how it went and
/// where its files are, the campaign's summary line, and the shard it was (or the
/// shards it was merged from). `coverage.json` beside it holds the coverage.
public struct ChaosSummary: Sendable, Hashable, Codable {
    /// The file's name in the campaign's directory.
    public static let fileName = "chaos.json"
    /// The version of this format.
    public static let currentSchemaVersion = 1

    public var schemaVersion: Int
    /// Always `chaos`: what `bench merge` and `--durations` tell the file by.
    public var kind: String
    /// The profile's name and the path it was given as.
    public var profile: String
    public var profilePath: String
    /// The app under test as the campaign named it (`deadzone`, `deadzone --misbehave X`,
    /// or the `--agent` command line).
    public var agent: String
    public var wallSeconds: Double
    /// Why the campaign stopped starting inputs (`every input was played`, …).
    public var stop: String
    /// The campaign's last line, as `bench chaos` printed it.
    public var summary: String
    public var inputs: [ChaosInputSummary]
    /// Which part of a sharded campaign this was (`--shard i/n`); nil for a whole one.
    public var shard: ShardRecord?
    /// The shards a merged campaign was joined from; nil for one a single process played.
    public var mergedFrom: [MergedShard]?

    /// A summary.
    public init(
        profile: String, profilePath: String, agent: String, wallSeconds: Double, stop: String, summary: String,
        inputs: [ChaosInputSummary], shard: ShardRecord? = nil
    ) {
        schemaVersion = Self.currentSchemaVersion
        kind = "chaos"
        self.profile = profile
        self.profilePath = profilePath
        self.agent = agent
        self.wallSeconds = wallSeconds
        self.stop = stop
        self.summary = summary
        self.inputs = inputs
        self.shard = shard
    }

    /// Whether every input passed (and there was one).
    public var passed: Bool { !inputs.isEmpty && inputs.allSatisfy { $0.outcome == .pass } }

    /// Writes it as pretty, key-sorted JSON into `directory`.
    public func write(into directory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let url = URL(fileURLWithPath: directory).appendingPathComponent(Self.fileName)
        try encoder.encode(self).write(to: url, options: .atomic)
    }

    /// The summary in `directory`'s `chaos.json`.
    public static func read(from directory: String) throws -> ChaosSummary {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(
            ChaosSummary.self, from: Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(fileName)))
    }
}

/// One input of a campaign, as `chaos.json` keeps it. Paths are relative to the
/// campaign's directory.
public struct ChaosInputSummary: Sendable, Hashable, Codable {
    public enum Outcome: String, Sendable, Hashable, Codable { case pass, fail, unsupported }

    /// `seed-17`, `mutant-3`, `s2-mutant-3` (a mutant of shard 2).
    public var label: String
    public var seed: UInt64
    /// The input it mutates, for a mutant.
    public var parent: String?
    /// Its scenario file and its report directory.
    public var file: String
    public var reports: String
    public var steps: Int
    public var outcome: Outcome
    /// `crash-recovery, error: timed out` for a failed input.
    public var failure: String?
    public var exercised: [String]
    public var wallSeconds: Double
    /// The situation pairs it created first in its campaign (its shard's, when sharded).
    public var newPairs: [String]
    /// The shrunk file of a failed input, when it was shrunk.
    public var shrunk: ChaosShrunkSummary?

    /// An input.
    public init(
        label: String, seed: UInt64, parent: String?, file: String, reports: String, steps: Int, outcome: Outcome,
        failure: String?, exercised: [String], wallSeconds: Double, newPairs: [String], shrunk: ChaosShrunkSummary?
    ) {
        self.label = label
        self.seed = seed
        self.parent = parent
        self.file = file
        self.reports = reports
        self.steps = steps
        self.outcome = outcome
        self.failure = failure
        self.exercised = exercised
        self.wallSeconds = wallSeconds
        self.newPairs = newPairs
        self.shrunk = shrunk
    }
}

/// Where a failed input's shrinking ended.
public struct ChaosShrunkSummary: Sendable, Hashable, Codable {
    /// The shrunk file (`seed-17.min.yaml`) and its reports (`seed-17.min`), relative.
    public var file: String
    public var reports: String
    public var steps: Int
    public var originalSteps: Int
    public var runs: Int
    /// What every kept candidate still failed.
    public var target: String

    /// A result.
    public init(file: String, reports: String, steps: Int, originalSteps: Int, runs: Int, target: String) {
        self.file = file
        self.reports = reports
        self.steps = steps
        self.originalSteps = originalSteps
        self.runs = runs
        self.target = target
    }
}
