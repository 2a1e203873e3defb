import BenchCore
import Foundation
import ResilienceHarness

/// One engine of a matrix under one profile, ready to run: its name, the command it
/// runs as (already resolved: a builtin's `bench agent …` or the user's command line),
/// and the profile.
public struct MatrixEntry: Sendable {
    public var agent: String
    public var app: AppCommandLine
    public var profile: Profile
    public var profilePath: String

    public init(agent: String, app: AppCommandLine, profile: Profile, profilePath: String) {
        self.agent = agent
        self.app = app
        self.profile = profile
        self.profilePath = profilePath
    }

    /// The run's directory inside the matrix's: `<agent>--<profile>`, file-name safe.
    public var directoryName: String {
        let safe = { (text: String) in
            String(text.map { $0.isLetter || $0.isNumber || "._-".contains($0) ? $0 : "-" })
        }
        return safe(agent) + "--" + safe(profile.name)
    }
}

/// Runs every entry of a matrix in turn (the harness, then that run's own report
/// directory), then writes `matrix.html`, `matrix.json` and `junit.xml` beside them.
/// Called by `bench matrix`; blocks its task for as long as the runs take.
public enum MatrixRunner {
    /// The files of a matrix directory.
    public static let jsonFileName = "matrix.json"
    public static let junitFileName = "junit.xml"

    /// Runs `entries` over `scenarios` into `directory` (each run's options from
    /// `options(entry)`), reporting each run's progress through `progress`.
    public static func run(
        _ entries: [MatrixEntry], scenarios: [Scenario], into directory: URL,
        options: (MatrixEntry) -> HarnessOptions,
        started: (MatrixEntry, Int) -> Void = { _, _ in },
        progress: @escaping @Sendable (HarnessProgress) -> Void = { _ in }
    ) async throws(ReportWriterError) -> Matrix {
        var runs: [(column: MatrixColumn, report: RunReport?)] = []
        for (index, entry) in entries.enumerated() {
            started(entry, index)
            let run = await HarnessRunner.run(scenarios, options: options(entry), progress: progress)
            var column = MatrixColumn(
                agent: entry.agent, command: entry.app.description, profile: entry.profile.name,
                reportDirectory: entry.directoryName)
            do {
                try ReportWriter().write(run.report, trace: run.trace, to: directory.appendingPathComponent(entry.directoryName))
                runs.append((column, run.report))
            } catch {
                column.error = "its report could not be written: \(error)"
                runs.append((column, run.report))
            }
        }
        let matrix = Matrix.build(runs)
        try write(matrix, to: directory)
        return matrix
    }

    /// Writes `matrix.html`, `matrix.json` and `junit.xml` into `directory`.
    public static func write(_ matrix: Matrix, to directory: URL) throws(ReportWriterError) {
        let writer = ReportWriter()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .cannotCreateDirectory(path: directory.path, reason: "\(error)")
        }
        let json: Data
        do { json = try encode(matrix) } catch {
            throw .cannotRender(path: directory.appendingPathComponent(jsonFileName).path, reason: "\(error)")
        }
        for (name, data) in [
            (jsonFileName, json), (junitFileName, Data(MatrixJUnit.render(matrix).utf8)),
            (MatrixHTML.fileName, Data(MatrixHTML.render(matrix).utf8)),
        ] {
            try writer.place(directory.appendingPathComponent(name)) { url throws(ReportWriterError) in
                try ReportWriter.writeData(data, to: url)
            }
        }
        ReportWriter.syncDirectory(directory)
    }

    /// `matrix.json`: the schema version, the columns, each column's summary, the rows.
    public static func encode(_ matrix: Matrix) throws -> Data {
        struct Document: Encodable {
            var schemaVersion: Int
            var columns: [MatrixColumn]
            var summary: [MatrixColumnSummary]
            var rows: [MatrixRow]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(Document(
            schemaVersion: matrix.schemaVersion, columns: matrix.columns, summary: matrix.summary, rows: matrix.rows))
    }
}
