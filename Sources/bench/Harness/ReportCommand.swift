import ArgumentParser
import BenchReports
import Foundation
import ResilienceHarness

/// `bench report DIR`: renders a report again from its files.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Render a run's report again (HTML, JUnit) from its report.json and trace.jsonl.",
        discussion: "Example: swift run bench report Reports/20261123-180000-flaky-wifi"
    )

    @Argument(help: "A report directory written by `bench` or `bench gate`.")
    var directory: String

    @Option(help: "Compare with this baseline file in the HTML report.")
    var baseline: String?

    func run() throws {
        let files = ReportFiles(directory: URL(fileURLWithPath: directory))
        let report: RunReport
        let trace: [TraceEntry]
        do {
            report = try ReportJSON.read(from: files.reportJSON)
            trace = try TraceFile.read(from: files.traceJSONL)
        } catch {
            exitBadInput("\(error) (is \(directory) a report directory? it needs report.json and trace.jsonl)")
        }
        var comparison: GateComparison?
        if let baseline {
            do { comparison = GateComparison(report: report, baseline: try Baseline.read(from: URL(fileURLWithPath: baseline))) } catch {
                exitBadInput("\(error)")
            }
        }
        let written = try ReportWriter().write(report, trace: trace, comparison: comparison, to: files.directory)
        print("report: \(written.reportHTML.path)")
    }
}
