import BenchResults
import BenchVocabulary
import Foundation

/// `report.html` of a comparison: one self-contained page with the client × fault-mode
/// table, the clients and modes, and for each run its output judgement, figures,
/// stderr and a timeline of its window (`Templates/compare.mustache`).
/// Stateless; call from any thread.
public enum ComparisonHTML {
    /// The page for `report`, drawing each run's timeline from `trace`.
    public static func render(_ report: ComparisonReport, trace: [TraceEntry]) throws(HTMLReportError) -> String {
        let ordered = zip(trace, trace.dropFirst()).allSatisfy { $0.t <= $1.t }
            ? trace : trace.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
        let timelines = report.runs.map { run -> TimelineSVG? in
            guard run.endNanoseconds > run.startNanoseconds, run.outcome != .notRun || run.error == nil else { return nil }
            return TimelineSVG(Timeline(entries: ordered, start: run.startNanoseconds, end: run.endNanoseconds))
        }
        return try ReportTemplates.render(ComparisonHTMLView(report: report, timelines: timelines), with: "compare")
    }
}
