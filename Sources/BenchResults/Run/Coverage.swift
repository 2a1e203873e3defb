import Foundation

/// One pair of a situation (docs/situations.md): an incident (`network.down-reset`) and a
/// context that held when it happened (`phase:mid-segment`). Its `id` is the key of
/// coverage in reports and baselines.
public struct SituationPair: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public var incident: String
    public var context: String

    /// A pair.
    public init(incident: String, context: String) {
        self.incident = incident
        self.context = context
    }

    /// `network.down-reset × phase:mid-segment`.
    public var id: String { "\(incident) × \(context)" }
    public var description: String { id }

    public static func < (a: SituationPair, b: SituationPair) -> Bool { a.id < b.id }
}

/// A pair a scenario created, at its first moment, with the evidence of the incident.
public struct CoveredPair: Sendable, Hashable, Codable {
    public var pair: SituationPair
    /// When it first happened (nanoseconds since the run's epoch).
    public var t: UInt64
    /// What in the trace shows the incident.
    public var evidence: String

    /// A covered pair.
    public init(pair: SituationPair, t: UInt64, evidence: String) {
        self.pair = pair
        self.t = t
        self.evidence = evidence
    }
}

/// The situations one scenario created: every pair once, at its first moment, in id order.
public struct ScenarioCoverage: Sendable, Hashable, Codable {
    public var pairs: [CoveredPair]

    /// Coverage of `pairs` (kept once each, the earliest, sorted by id).
    public init(pairs: [CoveredPair]) {
        var first: [SituationPair: CoveredPair] = [:]
        for covered in pairs where first[covered.pair].map({ covered.t < $0.t }) ?? true { first[covered.pair] = covered }
        self.pairs = first.values.sorted { $0.pair < $1.pair }
    }
}

/// A pair of the situation model's meaningful list (`SituationModel`), the properties it
/// exercises, and the scenarios of a run that created it.
public struct MeaningfulPairCoverage: Sendable, Hashable, Codable {
    public var pair: SituationPair
    /// The properties whose situation this pair is (their ids).
    public var properties: [String]
    /// Why the pair matters, in a sentence (a bug that lives there).
    public var why: String
    /// The scenarios that created it, in run order; empty when none did.
    public var scenarios: [String]

    /// An entry.
    public init(pair: SituationPair, properties: [String], why: String, scenarios: [String]) {
        self.pair = pair
        self.properties = properties
        self.why = why
        self.scenarios = scenarios
    }

    /// Whether a scenario created it.
    public var covered: Bool { !scenarios.isEmpty }
}

/// A run's coverage of the situation model: each meaningful pair, covered or not, and how
/// many other pairs the run created.
public struct RunCoverage: Sendable, Hashable, Codable {
    /// The model's meaningful pairs, in the model's order.
    public var meaningful: [MeaningfulPairCoverage]
    /// Pairs the run created that the model does not list as meaningful.
    public var otherPairs: [SituationPair]

    /// A run's coverage.
    public init(meaningful: [MeaningfulPairCoverage], otherPairs: [SituationPair]) {
        self.meaningful = meaningful
        self.otherPairs = otherPairs
    }

    /// How many meaningful pairs the run created.
    public var covered: Int { meaningful.filter(\.covered).count }

    /// The meaningful pairs no scenario created.
    public var uncovered: [MeaningfulPairCoverage] { meaningful.filter { !$0.covered } }

    /// The ids of the meaningful pairs created (what a baseline keeps).
    public var coveredIDs: [String] { meaningful.filter(\.covered).map(\.pair.id) }

    /// "31 of 37 meaningful situation pairs (84 %)".
    public var summary: String {
        let share = meaningful.isEmpty ? 0 : Int((Double(covered) / Double(meaningful.count) * 100).rounded())
        return "\(covered) of \(meaningful.count) meaningful situation pairs (\(share) %)"
    }

    /// This coverage and `other`'s together (runs of the same model: shards, campaigns).
    public func union(_ other: RunCoverage) -> RunCoverage {
        var byID = Dictionary(uniqueKeysWithValues: other.meaningful.map { ($0.pair.id, $0.scenarios) })
        let meaningful = meaningful.map { entry -> MeaningfulPairCoverage in
            var merged = entry
            for scenario in byID.removeValue(forKey: entry.pair.id) ?? [] where !merged.scenarios.contains(scenario) {
                merged.scenarios.append(scenario)
            }
            return merged
        }
        return RunCoverage(meaningful: meaningful, otherPairs: Array(Set(otherPairs + other.otherPairs)).sorted())
    }
}
