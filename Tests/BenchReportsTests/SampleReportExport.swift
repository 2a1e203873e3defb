import BenchReports
import Foundation
import BenchResults
import BenchVocabulary
import Testing

/// Writes the sample run's report directory where `DEADZONE_SAMPLE_REPORT` says, for
/// `.ci/render-report` to check in a real browser:
///
///     DEADZONE_SAMPLE_REPORT=/tmp/sample swift test --filter SampleReportExport
///     .ci/render-report /tmp/sample/report.html
///
/// Skipped when the variable is not set.
@Suite struct SampleReportExport {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["DEADZONE_SAMPLE_REPORT"] != nil))
    func writeTheSampleReport() throws {
        let path = try #require(ProcessInfo.processInfo.environment["DEADZONE_SAMPLE_REPORT"])
        let report = SampleRun.report()
        let baseline = Baseline().updated(from: report)
        try ReportWriter().write(
            report, trace: SampleRun.trace(), comparison: GateComparison(report: report, baseline: baseline),
            to: URL(fileURLWithPath: path))
    }
}
