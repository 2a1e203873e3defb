import BenchReports
import Foundation
import ResilienceHarness

enum MatrixRun {
    /// Runs `entries` over `scenarios` into `directory` (each run's options from
    /// `options(entry)`), reporting each run's progress through `progress`.
    static func run(
        _ entries: [MatrixEntry], scenarios: [Scenario], into directory: URL,
        options: (MatrixEntry) -> HarnessOptions, shard: ShardRecord? = nil,
        started: (MatrixEntry, Int) -> Void = { _, _ in },
        progress: @escaping @Sendable (HarnessProgress) -> Void = { _ in }
    ) async throws(ReportWriterError) -> Matrix {
        var runs: [(column: MatrixColumn, report: RunReport?)] = []
        for (index, entry) in entries.enumerated() {
            var column = MatrixColumn(
                agent: entry.agent, command: entry.app.description, profile: entry.profile.name,
                reportDirectory: entry.directoryName)
            let (chosen, record) = part(of: scenarios, for: entry, shard: shard)
            guard !chosen.isEmpty else {
                column.error = "shard \(shard?.spec ?? "") plays none of this run's scenarios"
                runs.append((column, nil))
                continue
            }
            started(entry, index)
            var harness = options(entry)
            if record != nil { harness.seedOffsets = Dictionary(scenarios.enumerated().map { ($1.name, $0) }) { a, _ in a } }
            var run = await HarnessRunner.run(chosen, options: harness, progress: progress)
            run.report.run.shard = record
            do {
                try ReportWriter().write(run.report, trace: run.trace, to: directory.appendingPathComponent(entry.directoryName))
                runs.append((column, run.report))
            } catch {
                column.error = "its report could not be written: \(error)"
                runs.append((column, run.report))
            }
        }
        var matrix = Matrix.build(runs)
        matrix.shard = shard
        try MatrixFiles.write(matrix, to: directory)
        return matrix
    }

    /// The scenarios of `entry`'s run that `shard` plays (all without one), and the
    /// record its report keeps: the shard's, narrowed to this run's scenarios.
    static func part(of scenarios: [Scenario], for entry: MatrixEntry, shard: ShardRecord?) -> ([Scenario], ShardRecord?) {
        guard let shard else { return (scenarios, nil) }
        let key = { (scenario: Scenario) in MatrixShard.key(run: entry.directoryName, scenario: scenario.name) }
        let chosen = scenarios.filter { shard.units.contains(key($0)) }
        let record = ShardRecord(
            index: shard.index, count: shard.count, units: chosen.map(\.name), allUnits: scenarios.map(\.name),
            plan: shard.plan, identity: shard.identity)
        return (chosen, record)
    }
}
