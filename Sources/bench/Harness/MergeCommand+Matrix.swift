import ArgumentParser
import BenchReports
import Foundation
import ResilienceHarness

extension MergeCommand {
    /// `bench matrix` shards: each run's (engine × profile) report joined from the shards
    /// that played some of its scenarios, then the matrix of the whole.
    func mergeMatrices(into directory: String) async throws {
        var parts: [(directory: String, matrix: Matrix)] = []
        for source in directories {
            do { parts.append((source, try MatrixFiles.read(from: URL(fileURLWithPath: source)))) } catch {
                exitBadInput(ShardMergeError.unreadable(directory: source, reason: "\(error)").description)
            }
        }
        let ordered: [(directory: String, record: ShardRecord)]
        let matrices: [Matrix]
        do {
            let found = try ShardSet.order(parts) { ShardInput(directory: $0.directory, record: $0.matrix.shard) }
            ordered = found.map { ($0.input.directory, $0.record) }
            matrices = found.map(\.part.matrix)
        } catch { exitBadInput(error.description) }
        let columns = matrices[0].columns
        for (index, matrix) in matrices.enumerated() where Self.columnKeys(matrix) != Self.columnKeys(matrices[0]) {
            exitBadInput(ShardMergeError.mismatch(
                key: "runs (engine × profile)", first: ordered[0].directory, firstValue: Self.columnKeys(matrices[0]),
                other: ordered[index].directory, otherValue: Self.columnKeys(matrix)).description)
        }
        print(Self.mergedLine(ordered.map { ($0.directory, $0.record, nil) }))
        var runs: [(column: MatrixColumn, report: RunReport?)] = []
        for (index, column) in columns.enumerated() {
            var merged = column
            let sources = ordered.map(\.directory).filter { source in
                FileManager.default.fileExists(
                    atPath: ((source as NSString).appendingPathComponent(column.reportDirectory) as NSString)
                        .appendingPathComponent(ReportJSON.fileName))
            }
            guard !sources.isEmpty else {
                // The error of the shard that was to play this run, before a "plays none" of the others.
                let errors = matrices.compactMap { $0.columns[index].error }
                merged.error = errors.first { !$0.hasPrefix("shard ") } ?? errors.first ?? "no shard wrote its report"
                runs.append((merged, nil))
                continue
            }
            let whole: (report: RunReport, trace: [TraceEntry])
            do {
                whole = try RunMerge.merge(sources.map { Self.readPart(($0 as NSString).appendingPathComponent(column.reportDirectory)) })
            } catch { exitBadInput(error.description) }
            let target = URL(fileURLWithPath: directory).appendingPathComponent(column.reportDirectory)
            merged.error = nil
            do { try ReportWriter().write(whole.report, trace: whole.trace, to: target) } catch {
                merged.error = "its report could not be written: \(error)"
            }
            runs.append((merged, whole.report))
        }
        var matrix = Matrix.build(runs)
        matrix.mergedFrom = ordered.map { shard in
            MergedShard(index: shard.record.index, count: shard.record.count, directory: shard.directory, units: shard.record.units.count)
        }
        try MatrixFiles.write(matrix, to: URL(fileURLWithPath: directory))
        for summary in matrix.summary { print(summary.line) }
        print("\nmatrix: \(directory)/\(MatrixHTML.fileName)")
    }

    /// `deadzone--flaky-wifi, python--flaky-wifi`: the runs a matrix has, by report directory.
    static func columnKeys(_ matrix: Matrix) -> String {
        matrix.columns.map(\.reportDirectory).joined(separator: ", ")
    }
}
