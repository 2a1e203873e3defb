import Foundation

/// Joins the summaries and coverage of the shards of one chaos campaign (`bench chaos
/// --shard i/n`) into the whole's: every input once (the given seeds in the whole's
/// order, then each shard's fresh seeds and mutants), coverage united.
public enum ChaosMerge {
    /// One shard's campaign.
    public struct Part: Sendable {
        public var directory: String
        public var summary: ChaosSummary
        public var coverage: ChaosCoverage

        /// A part.
        public init(directory: String, summary: ChaosSummary, coverage: ChaosCoverage) {
            self.directory = directory
            self.summary = summary
            self.coverage = coverage
        }
    }

    /// The whole's summary and coverage from `parts` (in shard order, checked by
    /// `ShardSet`), or why they do not make one (an input label two shards played).
    public static func merge(_ parts: [Part]) throws(ShardMergeError) -> (summary: ChaosSummary, coverage: ChaosCoverage) {
        guard let first = parts.first, let record = first.summary.shard else { throw .noInputs }
        var owner: [String: String] = [:]
        for part in parts {
            for input in part.summary.inputs {
                if let earlier = owner[input.label] {
                    throw .unitsDisagree(directory: part.directory, detail: "\(input.label) was played by \(earlier) too")
                }
                owner[input.label] = part.directory
            }
        }
        let position = Dictionary(record.allUnits.enumerated().map { ($1, $0) }) { a, _ in a }
        let inputs = parts.flatMap(\.summary.inputs).enumerated().sorted { a, b in
            let (x, y) = (position[a.element.label] ?? Int.max, position[b.element.label] ?? Int.max)
            return x != y ? x < y : a.offset < b.offset
        }.map(\.element)
        var coverage = first.coverage.coverage
        for part in parts.dropFirst() { coverage = coverage.union(part.coverage.coverage) }
        let order = Dictionary(inputs.enumerated().map { ($1.label, $0) }) { a, _ in a }
        for index in coverage.meaningful.indices {
            coverage.meaningful[index].scenarios.sort { (order[$0] ?? 0) < (order[$1] ?? 0) }
        }
        let growth = parts.flatMap(\.coverage.growth)
        let united = ChaosCoverage(coverage: coverage, growth: growth)
        let wall = parts.map(\.summary.wallSeconds).max() ?? 0
        let stops = Set(parts.map(\.summary.stop))
        let stop = stops.count == 1 ? first.summary.stop
            : parts.map { "shard \($0.summary.shard?.spec ?? "?"): \($0.summary.stop)" }.joined(separator: "; ")
        var summary = ChaosSummary(
            profile: first.summary.profile, profilePath: first.summary.profilePath, agent: first.summary.agent,
            wallSeconds: wall, stop: stop, summary: "", inputs: inputs)
        summary.mergedFrom = parts.map { part in
            MergedShard(
                index: part.summary.shard?.index ?? 0, count: part.summary.shard?.count ?? 0, directory: part.directory,
                units: part.summary.inputs.count, durationSeconds: part.summary.wallSeconds)
        }
        summary.summary = line(summary, coverage: united)
        return (summary, united)
    }

    /// `chaos, merged from 4 shards: 199 of 200 inputs passed, 1 failed (seed-17); coverage: …; longest shard 8m`.
    static func line(_ summary: ChaosSummary, coverage: ChaosCoverage) -> String {
        let failed = summary.inputs.filter { $0.outcome == .fail }
        let shards = summary.mergedFrom?.count ?? 1
        return "chaos, merged from \(shards) shard\(shards == 1 ? "" : "s"): "
            + "\(summary.inputs.filter { $0.outcome == .pass }.count) of \(summary.inputs.count) inputs passed, \(failed.count) failed"
            + (failed.isEmpty ? "" : " (" + failed.map(\.label).joined(separator: ", ") + ")")
            + "; coverage: \(coverage.coverage.summary), \(coverage.pairs) pairs in all"
            + String(format: "; longest shard %.0f s", summary.wallSeconds)
    }
}
