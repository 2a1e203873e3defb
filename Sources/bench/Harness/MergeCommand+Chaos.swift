import ArgumentParser
import BenchReports
import Foundation
import ResilienceHarness

extension MergeCommand {
    /// `bench chaos` shards: every input's files copied into the whole's directory, then
    /// its `chaos.json` and `coverage.json`.
    func mergeCampaigns(into directory: String) async throws {
        var parts: [ChaosMerge.Part] = []
        for source in directories {
            do {
                parts.append(ChaosMerge.Part(
                    directory: source, summary: try ChaosSummary.read(from: source),
                    coverage: try ChaosCoverage.read(from: (source as NSString).appendingPathComponent("coverage.json"))))
            } catch {
                exitBadInput(ShardMergeError.unreadable(directory: source, reason: "\(error)").description)
            }
        }
        let merged: (summary: ChaosSummary, coverage: ChaosCoverage)
        let ordered: [(part: ChaosMerge.Part, input: ShardInput, record: ShardRecord)]
        do {
            ordered = try ShardSet.order(parts) { ShardInput(directory: $0.directory, record: $0.summary.shard) }
            merged = try ChaosMerge.merge(ordered.map(\.part))
        } catch { exitBadInput(error.description) }
        print(Self.mergedLine(ordered.map { ($0.input.directory, $0.record, $0.part.summary.wallSeconds) }))
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for part in parts {
                for input in part.summary.inputs {
                    let names = [input.file, input.reports] + [input.shrunk?.file, input.shrunk?.reports].compactMap { $0 }
                    for name in names { try Self.copy(name, from: part.directory, to: directory) }
                }
            }
            try merged.summary.write(into: directory)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(merged.coverage).write(
                to: URL(fileURLWithPath: directory).appendingPathComponent("coverage.json"), options: .atomic)
        } catch {
            exitWithError("cannot write the merged campaign into \(directory): \(error); the shards' directories are unchanged", code: 1)
        }
        print(merged.summary.summary)
        print("campaign: \(directory)/\(ChaosSummary.fileName)")
        if !merged.summary.passed { throw ExitCode(1) }
    }

    /// Copies `name` (a file or a directory) from `source` into `target`, replacing what
    /// was there; nothing when the source has none (an input whose reports were not written).
    static func copy(_ name: String, from source: String, to target: String) throws {
        let from = (source as NSString).appendingPathComponent(name)
        let to = (target as NSString).appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: from) else { return }
        if FileManager.default.fileExists(atPath: to) { try FileManager.default.removeItem(atPath: to) }
        try FileManager.default.copyItem(atPath: from, toPath: to)
    }
}
