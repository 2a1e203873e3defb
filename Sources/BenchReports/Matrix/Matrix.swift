import Foundation
import BenchResults

/// `bench matrix`'s table: rows are scenario × property, columns are engine × profile,
/// each cell what that run found (`matrix.json`, `matrix.html`, `junit.xml`). An
/// engine's column reads as its conformance sheet.
///
/// A value built from finished runs (`Matrix.build`) by `bench matrix` (`MatrixRun`) or a test; the
/// renderers only read it. Every scenario has a row `(scenario)` for the scenario as a
/// whole (its preconditions, its error, unsupported), then one row per property.
public struct Matrix: Sendable, Hashable, Codable {
    /// The version of this format.
    public static let currentSchemaVersion = 1
    /// The property name of a scenario's own row.
    public static let scenarioRow = "(scenario)"

    public var schemaVersion: Int
    public var columns: [MatrixColumn]
    public var rows: [MatrixRow]
    /// Which part of a sharded matrix this is (`--shard i/n`); nil for a whole one.
    public var shard: ShardRecord?
    /// The shards a merged matrix was joined from (`bench merge`); nil otherwise.
    public var mergedFrom: [MergedShard]?

    /// What one column found, by outcome of its scenario rows and of its property cells.
    public var summary: [MatrixColumnSummary] {
        columns.indices.map { index in
            var summary = MatrixColumnSummary(agent: columns[index].agent, profile: columns[index].profile)
            summary.coveredPairs = columns[index].coveredPairs
            summary.meaningfulPairs = columns[index].meaningfulPairs
            for row in rows {
                let cell = row.cells[index]
                if row.property == Self.scenarioRow {
                    summary.scenarios[cell.outcome.rawValue, default: 0] += 1
                } else {
                    summary.properties[cell.outcome.rawValue, default: 0] += 1
                    if cell.outcome == .fail { summary.failedProperties.append("\(row.scenario): \(row.property)") }
                }
            }
            return summary
        }
    }
}

/// One run of the matrix: an engine under a profile.
public struct MatrixColumn: Sendable, Hashable, Codable {
    /// The engine's name (`deadzone`, `python`, `mine`, `fail-on-outage`).
    public var agent: String
    /// The command line the engine ran as.
    public var command: String
    public var profile: String
    /// The app's name and version from its hello, when it answered one.
    public var app: String?
    /// The run's report directory, relative to the matrix's directory.
    public var reportDirectory: String
    /// Why the run produced no report (it could not start), when it did not.
    public var error: String?
    /// The situations the run created (docs/situations.md): how many of the model's
    /// meaningful pairs, and which it did not; nil when the run has no report.
    public var coveredPairs: Int?
    public var meaningfulPairs: Int?
    public var uncoveredPairs: [String]?

    /// `36 of 37 meaningful situation pairs (uncovered: a × b)`, when the run was measured.
    public var coverageText: String? {
        guard let coveredPairs, let meaningfulPairs else { return nil }
        let missing = uncoveredPairs ?? []
        return "\(coveredPairs) of \(meaningfulPairs) meaningful situation pairs"
            + (missing.isEmpty ? "" : " (uncovered: \(missing.joined(separator: "; ")))")
    }

    /// A column.
    public init(agent: String, command: String, profile: String, app: String? = nil, reportDirectory: String, error: String? = nil) {
        self.agent = agent
        self.command = command
        self.profile = profile
        self.app = app
        self.reportDirectory = reportDirectory
        self.error = error
    }

    /// The run's page, relative to the matrix's directory.
    public var reportPage: String { reportDirectory + "/" + HTMLReport.fileName }
}

/// A scenario × property row: one cell per column.
public struct MatrixRow: Sendable, Hashable, Codable {
    public var scenario: String
    /// A property's id, or `Matrix.scenarioRow`.
    public var property: String
    public var cells: [MatrixCell]
}

/// What one run found for one row, and where to read why.
public struct MatrixCell: Sendable, Hashable, Codable {
    public var outcome: MatrixOutcome
    /// One sentence: the verdict's summary, the error, the missing capabilities.
    public var detail: String
    /// The run's page at that scenario (`deadzone--flaky-wifi/report.html#scenario-2`), nil when there is none.
    public var link: String?
}

/// A cell's outcome.
public enum MatrixOutcome: String, Sendable, Hashable, Codable, CaseIterable {
    case pass, fail, unsupported, error
    /// The verdict did not fail, but the scenario did not create the situation the
    /// property is asserted in (a precondition unmet): unproven, never a pass.
    case preconditionUnmet = "precondition unmet"
    /// The scenario did not exercise the property.
    case notApplicable = "n/a"
    /// The run has no such scenario (it could not start, or was not asked for it).
    case notRun = "not run"
}

/// The tallies of one column.
public struct MatrixColumnSummary: Sendable, Hashable, Codable {
    public var agent: String
    public var profile: String
    /// Scenario rows by outcome (`pass`, `fail`, `unsupported`, `error`…).
    public var scenarios: [String: Int] = [:]
    /// Property cells by outcome.
    public var properties: [String: Int] = [:]
    /// `scenario: property` of every failed property cell.
    public var failedProperties: [String] = []
    /// How many of the model's meaningful situation pairs the run created, of how many.
    public var coveredPairs: Int?
    public var meaningfulPairs: Int?

    /// `deadzone @ flaky-wifi: 4 pass, 1 fail; situations: 36 of 37 pairs; failed: housekeeping: integrity`,
    /// for `bench matrix`.
    public var line: String {
        let tally = MatrixOutcome.allCases.compactMap { outcome in scenarios[outcome.rawValue].map { "\($0) \(outcome.rawValue)" } }
        let situations = coveredPairs.flatMap { covered in meaningfulPairs.map { "; situations: \(covered) of \($0) pairs" } } ?? ""
        return "\(agent) @ \(profile): \(tally.joined(separator: ", "))\(situations)"
            + (failedProperties.isEmpty ? "" : "; failed: " + failedProperties.joined(separator: "; "))
    }
}

extension Matrix {
    /// The matrix of `runs`, in column order: each column with its run's report (nil when
    /// the run produced none). Scenarios and properties are in order of first appearance.
    public static func build(_ runs: [(column: MatrixColumn, report: RunReport?)]) -> Matrix {
        var scenarioOrder: [String] = []
        var propertyOrder: [String: [String]] = [:]
        for case let report? in runs.map(\.report) {
            for scenario in report.scenarios {
                if !scenarioOrder.contains(scenario.name) { scenarioOrder.append(scenario.name) }
                for verdict in scenario.verdicts where !(propertyOrder[scenario.name] ?? []).contains(verdict.property) {
                    propertyOrder[scenario.name, default: []].append(verdict.property)
                }
            }
        }
        var rows: [MatrixRow] = []
        for name in scenarioOrder {
            rows.append(MatrixRow(scenario: name, property: scenarioRow, cells: runs.map { scenarioCell(name, $0.column, $0.report) }))
            for property in propertyOrder[name] ?? [] {
                rows.append(MatrixRow(
                    scenario: name, property: property,
                    cells: runs.map { propertyCell(name, property, $0.column, $0.report) }))
            }
        }
        var columns = runs.map(\.column)
        for index in columns.indices {
            if columns[index].app == nil { columns[index].app = runs[index].report?.run.app }
            if let coverage = runs[index].report?.coverage {
                columns[index].coveredPairs = coverage.covered
                columns[index].meaningfulPairs = coverage.meaningful.count
                columns[index].uncoveredPairs = coverage.uncovered.map(\.pair.id)
            }
        }
        return Matrix(schemaVersion: currentSchemaVersion, columns: columns, rows: rows)
    }

    private static func locate(_ name: String, _ column: MatrixColumn, _ report: RunReport?) -> (ScenarioResult, String)? {
        guard let report, let index = report.scenarios.firstIndex(where: { $0.name == name }) else { return nil }
        // Its downloads named as the run's timeline names them (`clear · 2926520a`).
        return (report.scenarios[index].namingDownloads, column.reportPage + "#" + ScenarioAnchors(index: index).scenario)
    }

    private static func scenarioCell(_ name: String, _ column: MatrixColumn, _ report: RunReport?) -> MatrixCell {
        guard let (scenario, link) = locate(name, column, report) else {
            return MatrixCell(outcome: .notRun, detail: column.error ?? "not run", link: nil)
        }
        if let text = scenario.unsupportedText { return MatrixCell(outcome: .unsupported, detail: text, link: link) }
        if let error = scenario.error { return MatrixCell(outcome: .error, detail: error, link: link) }
        if let unmet = scenario.preconditions.first(where: { !$0.met }) {
            return MatrixCell(outcome: .fail, detail: "precondition not met: \(unmet.name): \(unmet.detail)", link: link)
        }
        let failed = scenario.failedProperties
        return failed.isEmpty
            ? MatrixCell(outcome: .pass, detail: "every property held", link: link)
            : MatrixCell(outcome: .fail, detail: "failed: " + failed.joined(separator: ", "), link: link)
    }

    private static func propertyCell(_ name: String, _ property: String, _ column: MatrixColumn, _ report: RunReport?)
        -> MatrixCell
    {
        guard let (scenario, link) = locate(name, column, report) else {
            return MatrixCell(outcome: .notRun, detail: column.error ?? "not run", link: nil)
        }
        if let text = scenario.unsupportedText { return MatrixCell(outcome: .unsupported, detail: text, link: link) }
        guard let verdict = scenario.verdicts.first(where: { $0.property == property }) else {
            return MatrixCell(outcome: scenario.error != nil ? .error : .notRun, detail: scenario.error ?? "no verdict", link: link)
        }
        switch verdict.outcome {
        case .failed: return MatrixCell(outcome: .fail, detail: verdict.summary, link: link)
        case _ where scenario.error != nil:
            return MatrixCell(outcome: .error, detail: "the scenario did not run to its end: \(scenario.error ?? "")", link: link)
        case _ where scenario.cell(property) == .preconditionUnmet:
            let unmet = scenario.preconditions.first { !$0.met }
            return MatrixCell(
                outcome: .preconditionUnmet,
                detail: "precondition not met: \(unmet?.name ?? "?"): \(unmet?.detail ?? ""); \(verdict.summary)", link: link)
        case .passed: return MatrixCell(outcome: .pass, detail: verdict.summary, link: link)
        case .notApplicable: return MatrixCell(outcome: .notApplicable, detail: verdict.summary, link: link)
        }
    }
}
