import BenchReports
import Foundation
import ResilienceHarness

/// What `--durations PATH` reads: the seconds each unit of work took in an earlier
/// output, by the unit keys the shard plans use (a scenario's name; a matrix run's
/// `engine--profile/scenario`; a chaos campaign's `seed-N`).
enum ShardDurationsFile {
    /// Why the file gave no durations.
    struct Unreadable: Error, CustomStringConvertible {
        var description: String
    }

    /// The seconds per unit key in `path`: a report directory or its report.json, a
    /// matrix's directory or its matrix.json, a chaos campaign's directory or its
    /// chaos.json, or a baseline file (its `seconds`).
    static func read(_ path: String) throws -> [String: Double] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw Unreadable(description: "no such file or directory")
        }
        let url = URL(fileURLWithPath: path)
        let directory = isDirectory.boolValue ? url : url.deletingLastPathComponent()
        let kind = isDirectory.boolValue ? MergeCommand.kind(of: path) : MergeCommand.Kind(fileName: url.lastPathComponent)
        switch kind {
        case .matrix: return try matrix(directory)
        case .chaos:
            let summary = try ChaosSummary.read(from: directory.path)
            return Dictionary(summary.inputs.filter { $0.parent == nil }.map { ($0.label, $0.wallSeconds) }) { a, _ in a }
        case .run:
            return ShardDurations.scenarioSeconds(try ReportJSON.read(from: directory.appendingPathComponent(ReportJSON.fileName)))
        case nil:
            guard !isDirectory.boolValue else {
                throw Unreadable(description: "the directory holds no report.json, matrix.json or chaos.json")
            }
        }
        let baseline = try Baseline.read(from: url)
        guard let seconds = baseline.seconds else {
            throw Unreadable(description: "the baseline records no scenario's seconds (update it with `bench gate --update-baseline`)")
        }
        return seconds
    }

    /// `engine--profile/scenario` → seconds, from each column's report of the matrix in `directory`.
    private static func matrix(_ directory: URL) throws -> [String: Double] {
        let matrix = try MatrixFiles.read(from: directory)
        var seconds: [String: Double] = [:]
        for column in matrix.columns {
            let url = directory.appendingPathComponent(column.reportDirectory).appendingPathComponent(ReportJSON.fileName)
            guard let report = try? ReportJSON.read(from: url) else { continue }
            for (scenario, value) in ShardDurations.scenarioSeconds(report) {
                seconds[MatrixShard.key(run: column.reportDirectory, scenario: scenario)] = value
            }
        }
        return seconds
    }
}
