import BenchResults
import BenchVocabulary
import Foundation

/// Joins the reports of the shards of one run (`bench --shard i/n`, `bench gate --shard
/// i/n`, or one engine × profile run of a sharded matrix) into the report of the whole,
/// as if one process had played every scenario: the scenarios in the whole's order, the
/// traces joined (each entry keeps the scenario it belongs to), coverage united.
public enum RunMerge {
    /// One shard's output.
    public struct Part: Sendable {
        public var directory: String
        public var report: RunReport
        public var trace: [TraceEntry]

        /// A part.
        public init(directory: String, report: RunReport, trace: [TraceEntry]) {
            self.directory = directory
            self.report = report
            self.trace = trace
        }
    }

    /// The whole's report and trace from `parts` (in shard order), or why they do not
    /// make one: a part without a shard record, a scenario its record does not list, a
    /// scenario of the whole that no part played or two parts did.
    public static func merge(_ parts: [Part]) throws(ShardMergeError) -> (report: RunReport, trace: [TraceEntry]) {
        guard let first = parts.first else { throw .noInputs }
        var owner: [String: String] = [:]
        var records: [ShardRecord] = []
        for part in parts {
            guard let record = part.report.run.shard else { throw .notAShard(directory: part.directory) }
            records.append(record)
            let played = part.report.scenarios.map(\.name)
            guard Set(played) == Set(record.units), played.count == record.units.count else {
                throw .unitsDisagree(
                    directory: part.directory,
                    detail: "its shard \(record.spec) lists \(record.units.joined(separator: ", ")), its report has "
                        + played.joined(separator: ", "))
            }
            for name in played {
                if let earlier = owner[name] {
                    throw .unitsDisagree(directory: part.directory, detail: "\(name) was played by \(earlier) too")
                }
                owner[name] = part.directory
            }
        }
        let whole = records[0].allUnits
        let missing = whole.filter { owner[$0] == nil }
        guard missing.isEmpty else {
            throw .unitsDisagree(directory: first.directory, detail: "no shard played \(missing.joined(separator: ", "))")
        }
        let position = Dictionary(whole.enumerated().map { ($1, $0) }) { a, _ in a }
        let scenarios = parts.flatMap(\.report.scenarios).sorted { (position[$0.name] ?? 0) < (position[$1.name] ?? 0) }
        let trace = parts.flatMap(\.trace).enumerated()
            .sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
        var run = first.report.run
        run.shard = nil
        run.startedAt = parts.map(\.report.run.startedAt).min() ?? run.startedAt
        run.durationSeconds = parts.map(\.report.run.durationSeconds).max() ?? run.durationSeconds
        run.jobs = parts.compactMap(\.report.run.jobs).max()
        run.app = parts.lazy.compactMap(\.report.run.app).first
        run.othersCPUShare = parts.compactMap(\.report.run.othersCPUShare).max()
        run.mergedFrom = zip(parts, records).map { part, record in
            MergedShard(
                index: record.index, count: record.count, directory: part.directory, units: record.units.count,
                startedAt: part.report.run.startedAt, durationSeconds: part.report.run.durationSeconds,
                hostname: part.report.run.machine["hostname"])
        }
        return (RunReport(run: run, scenarios: scenarios, coverage: coverage(parts.map(\.report), order: position)), trace)
    }

    /// The parts' coverage united, each pair's scenarios in the whole's order; nil when a
    /// part has none.
    static func coverage(_ reports: [RunReport], order: [String: Int]) -> RunCoverage? {
        let all = reports.compactMap(\.coverage)
        guard all.count == reports.count, var united = all.first else { return nil }
        for other in all.dropFirst() { united = united.union(other) }
        for index in united.meaningful.indices {
            united.meaningful[index].scenarios.sort { (order[$0] ?? 0) < (order[$1] ?? 0) }
        }
        return united
    }
}
