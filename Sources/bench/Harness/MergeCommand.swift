import ArgumentParser
import BenchCore
import BenchReports
import Foundation
import ResilienceHarness

/// `bench merge DIR…`: the outputs of the shards of one run, gate, matrix or chaos
/// campaign joined into the output of the whole.
struct MergeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Join the outputs of the shards of one run, gate, matrix or chaos campaign (--shard i/n) into one.",
        discussion: """
            Give every shard's output directory. Writes the whole's files into --out, as one process would have: \
            report.json, report.html, junit.xml and trace.jsonl for `bench` and `bench gate`; matrix.html, \
            matrix.json and junit.xml (and each run's report) for `bench matrix`; chaos.json, coverage.json and \
            every input's files for `bench chaos`. Refuses (exit 2), naming the directories, shards of different \
            commits, profiles, seeds, baselines, agents or plans, a shard given twice, and a missing one. \
            Shards of `bench gate` are gated as a whole here, coverage included, against the baseline they were \
            gated on (--baseline, default \(Baseline.defaultPath); a file with other contents is refused). See docs/ci.md.
            Exit status: 0 when the whole passes (a matrix: once written), 1 when it fails, 2 for bad input.
            Example: swift run bench merge shard-1 shard-2 --out Reports/merged
            """
    )

    @Argument(help: "The shards' output directories (each written with --shard i/n).")
    var directories: [String] = []

    @Option(help: "Where the whole's files go (default: Reports/<timestamp>-merged/).")
    var out: String?

    @Option(help: "The baseline of a gate's shards (default: \(Baseline.defaultPath)); compared in a run's HTML report.")
    var baseline: String?

    func run() async throws {
        guard !directories.isEmpty else { exitBadInput(ShardMergeError.noInputs.description) }
        let kinds = directories.map { ($0, Self.kind(of: $0)) }
        for (directory, kind) in kinds where kind == nil {
            exitBadInput("\(directory) holds no report.json, matrix.json or chaos.json: give the output directories of --shard runs")
        }
        if let (other, kind) = kinds.first(where: { $0.1 != kinds[0].1 }) {
            exitBadInput(ShardMergeError.mixedKinds(
                first: kinds[0].0, firstKind: kinds[0].1!.rawValue, other: other, otherKind: kind!.rawValue).description)
        }
        let directory = out ?? SummaryTable.defaultDirectory(profile: "merged")
        switch kinds[0].1! {
        case .run: try await mergeRuns(into: directory)
        case .matrix: try await mergeMatrices(into: directory)
        case .chaos: try await mergeCampaigns(into: directory)
        }
    }

    /// What a shard's output directory holds, told by the file it has.
    enum Kind: String, CaseIterable {
        // In the order looked for: a matrix's directory holds report.json files only below it.
        case matrix, chaos = "chaos campaign", run = "run's report"

        /// `matrix.json`, `chaos.json`, `report.json`.
        var fileName: String {
            switch self {
            case .matrix: MatrixFiles.jsonFileName
            case .chaos: ChaosSummary.fileName
            case .run: ReportJSON.fileName
            }
        }

        /// The kind whose file is named `name`; nil for another name.
        init?(fileName name: String) {
            guard let kind = Self.allCases.first(where: { $0.fileName == name }) else { return nil }
            self = kind
        }
    }

    /// The kind of output in `directory`, by the file it holds; nil when none.
    static func kind(of directory: String) -> Kind? {
        Kind.allCases.first { FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent($0.fileName)) }
    }

    /// A shard's report and trace, or exit 2 naming the directory.
    static func readPart(_ directory: String) -> RunMerge.Part {
        let files = ReportFiles(directory: URL(fileURLWithPath: directory))
        do {
            return RunMerge.Part(
                directory: directory, report: try ReportJSON.read(from: files.reportJSON),
                trace: try TraceFile.read(from: files.traceJSONL))
        } catch {
            exitBadInput(ShardMergeError.unreadable(directory: directory, reason: "\(error)").description)
        }
    }

    /// `bench` and `bench gate` shards: the whole's report, gated when the shards were a gate's.
    private func mergeRuns(into directory: String) async throws {
        let parts = directories.map(Self.readPart)
        let ordered: [(part: RunMerge.Part, input: ShardInput, record: ShardRecord)]
        let merged: (report: RunReport, trace: [TraceEntry])
        do {
            ordered = try ShardSet.order(parts) { ShardInput(directory: $0.directory, record: $0.report.run.shard) }
            merged = try RunMerge.merge(ordered.map(\.part))
        } catch { exitBadInput(error.description) }
        let identity = ordered[0].record.identity
        let partial = identity["partial"] == "true"
        print(Self.mergedLine(ordered.map { ($0.input.directory, $0.record, $0.part.report.run.durationSeconds) }))
        if identity["command"] == "gate" { return try gate(merged, identity: identity, partial: partial, into: directory) }
        let (comparison, note, warning) = GateComparison.forRun(merged.report, baselinePath: baseline, partial: partial)
        if let warning { FileHandle.standardError.writeSurvivingSignals(Data("warning: \(warning)\n".utf8)) }
        let files = try ReportWriter().write(
            merged.report, trace: merged.trace, comparison: comparison, baselineNote: note, to: URL(fileURLWithPath: directory))
        print("\n" + SummaryTable.render(merged.report))
        print("\nreport: \(files.reportHTML.path)")
        if !merged.report.passed { throw ExitCode(1) }
    }

    /// The merged gate: the whole compared with the baseline the shards were gated on.
    private func gate(
        _ merged: (report: RunReport, trace: [TraceEntry]), identity: [String: String], partial: Bool, into directory: String
    ) throws {
        let path = baseline ?? Baseline.defaultPath
        let current: Baseline
        do { current = try Baseline.read(from: URL(fileURLWithPath: path)) } catch { exitBadInput("\(error)") }
        let digest = ShardOptions.baselineDigest(path)
        if let recorded = identity["baseline"], recorded != digest {
            exitBadInput("the shards were gated on a baseline with digest \(recorded), \(path) has \(digest): "
                + "give the shards' baseline with --baseline")
        }
        let comparison = GateComparison(report: merged.report, baseline: current, onlyScenariosRun: partial)
        let note = ["Compared with \(path).", current.concurrencyNote(jobs: merged.report.run.jobs ?? 1)].compactMap { $0 }
        let files = try ReportWriter().write(
            merged.report, trace: merged.trace, comparison: comparison, baselineNote: note.joined(separator: " "),
            to: URL(fileURLWithPath: directory))
        print("\n" + SummaryTable.render(merged.report) + "\n")
        for line in comparison.lines(baselinePath: path) { print(line) }
        print("report: \(files.reportHTML.path)")
        let played = merged.report.scenarios.contains { $0.unsupported == nil }
        if !played { print("gate: fails: no scenario was played (every one needs a capability the app does not declare)") }
        if !comparison.passed || !played { throw ExitCode(1) }
    }

    /// `merged 2 shards (plan 9f…): 1/2 from A (5 units, 81 s), 2/2 from B (5 units, 77 s); longest 81 s`.
    static func mergedLine(_ ordered: [(directory: String, record: ShardRecord, seconds: Double?)]) -> String {
        let parts = ordered.map { shard in
            let took = shard.seconds.map { String(format: ", %.0f s", $0) } ?? ""
            return "\(shard.record.spec) from \(shard.directory) (\(shard.record.units.count) units\(took))"
        }
        return "merged \(ordered.count) shard\(ordered.count == 1 ? "" : "s") (plan \(ordered[0].record.plan)): "
            + parts.joined(separator: ", ")
    }
}
