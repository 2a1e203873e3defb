import BenchResults
import BenchVocabulary
import Foundation

/// `report.html`: one self-contained page (inline CSS and SVG, no script, no external
/// reference) that answers first: what failed, one sentence each, and the scenario ×
/// property grid (`VerdictGrid`); then the gate, every verdict with its evidence, each
/// scenario's metrics against the baseline and its timeline (failures marked), and the
/// run's facts, folded. Rendered with `Templates/report.mustache` (`ReportTemplates`).
///
/// The markup is XHTML-compatible (every element closed, attributes quoted, text
/// escaped), so XML tools read it as well as browsers. Stateless; call from any thread.
public enum HTMLReport {
    /// The file name inside a run's report directory.
    public static let fileName = "report.html"

    /// The page for `report`, drawing each scenario's timeline from its entries of
    /// `trace` (those tagged with its name; in an untagged trace, those in its window); `comparison` (optional) adds the baseline to the metrics,
    /// `baselineNote` (optional) says under the gate line which baseline that is, or
    /// why there is none.
    public static func render(
        _ report: RunReport, trace: [TraceEntry], comparison: GateComparison? = nil, baselineNote: String? = nil
    ) throws(HTMLReportError) -> String {
        // People read downloads as the timeline names them (`clear · 2926520a`).
        let report = report.namingDownloads
        let ordered = zip(trace, trace.dropFirst()).allSatisfy { $0.t <= $1.t }
            ? trace : trace.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
        let tagged = ordered.contains { $0.scenario != nil }
        let timelines = report.scenarios.enumerated().map { index, scenario in
            // Scenarios played concurrently overlap in time: each draws only its own entries.
            let entries = tagged ? ordered.filter { $0.scenario == scenario.name } : ordered
            var timeline = Timeline(entries: entries, start: scenario.startNanoseconds, end: scenario.endNanoseconds)
            timeline.markFailures(scenario.verdicts, anchors: ScenarioAnchors(index: index))
            return TimelineSVG(timeline)
        }
        return try ReportTemplates.render(HTMLReportView(report: report, comparison: comparison, baselineNote: baselineNote, timelines: timelines), with: "report")
    }
}

/// Why `report.html` could not be made.
public enum HTMLReportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The template is not where the package's resources should be.
    case templateMissing(reason: String)
    /// The template does not parse.
    case templateInvalid(reason: String)

    public var description: String {
        switch self {
        case let .templateMissing(reason):
            "the report template is missing (\(reason)): keep the BenchReports resource bundle next to the bench "
                + "executable, or rebuild"
        case let .templateInvalid(reason):
            "a report template does not parse (\(reason)): fix it in Sources/BenchReports/Templates/"
        }
    }
}
