import BenchResults
import Foundation

/// The table `bench` and `bench gate` print at the end of a run, the one-line outcome of
/// a scenario its progress shows, and where a run's reports go by default.
public enum SummaryTable {
    /// One row per scenario: result, failed properties, time to complete, goodput, waste.
    public static func render(_ report: RunReport) -> String {
        let header = ["scenario", "result", "failed properties", "complete", "goodput", "wasted", "peak RSS"]
        var rows = [header]
        for result in report.scenarios {
            let metrics = result.metrics
            rows.append([
                result.name,
                result.unsupported != nil ? "unsupported" : result.passed ? "pass" : "FAIL",
                result.unsupportedText.map { "(\($0))" } ?? failedText(result),
                metrics.timeToCompleteSeconds.map { String(format: "%.1f s", $0) } ?? "-",
                metrics.goodputBitsPerSecond.map { String(format: "%.2f Mbit/s", $0 / 1e6) } ?? "-",
                metrics.wastedBytes.map { String(format: "%.1f KiB", Double($0) / 1024) } ?? "-",
                metrics.agentPeakRSSBytes.map { String(format: "%.0f MiB", Double($0) / 1_048_576) } ?? "-",
            ])
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n") + unsupportedNote(report) + coverageNote(report)
    }

    /// The "failed properties" cell: every failed property, and "(precondition not met)"
    /// beside them when one was, never instead of them.
    static func failedText(_ result: ScenarioResult) -> String {
        var parts = result.failedProperties
        if result.error != nil { parts.append("(scenario error)") }
        if result.preconditions.contains(where: { !$0.met }) { parts.append("(precondition not met)") }
        return parts.joined(separator: ",")
    }

    /// The run's coverage of the situation model (docs/situations.md): the figure, and the
    /// meaningful pairs no scenario created.
    public static func coverageNote(_ report: RunReport) -> String {
        guard let coverage = report.coverage else { return "" }
        var lines = ["", "", "coverage: \(coverage.summary); \(coverage.otherPairs.count) other pair\(coverage.otherPairs.count == 1 ? "" : "s")"]
        let uncovered = coverage.uncovered
        if !uncovered.isEmpty, uncovered.count <= 12 {
            lines.append("not created by any scenario: " + uncovered.map(\.pair.id).joined(separator: "; "))
        } else if !uncovered.isEmpty {
            lines.append("\(uncovered.count) not created by any scenario (report.json and report.html list them)")
        }
        return lines.joined(separator: "\n")
    }

    /// A line naming the scenarios not played, and why the run's status ignores them (or not).
    public static func unsupportedNote(_ report: RunReport) -> String {
        let unsupported = report.unsupportedScenarios
        guard !unsupported.isEmpty else { return "" }
        let names = unsupported.map { "\($0.name) (\(($0.unsupported ?? []).joined(separator: ", ")))" }
        let verdict = unsupported.count == report.scenarios.count
            ? "no scenario was played, so the run fails"
            : "they neither pass nor fail the run"
        return "\n\n\(unsupported.count) unsupported, not played: \(names.joined(separator: ", ")); \(verdict)"
    }

    /// `Reports/<UTC timestamp>-<name>`: where a run's reports go without `--out`.
    public static func defaultDirectory(profile name: String, at date: Date = Date()) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return "Reports/\(formatter.string(from: date))-\(name)"
    }
}
