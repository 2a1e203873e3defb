import BenchReports
import Foundation
import ResilienceHarness

enum MatrixRun {
    /// Runs `entries` over `scenarios` into `directory` (each run's options from
    /// `options(entry)`), reporting each run's progress through `progress`.
    static func run(
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
        try MatrixFiles.write(matrix, to: directory)
        return matrix
    }
}
