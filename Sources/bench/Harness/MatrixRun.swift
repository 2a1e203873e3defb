import BenchCore
import BenchReports
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
