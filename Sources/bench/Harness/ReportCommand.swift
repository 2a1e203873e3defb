import ArgumentParser
import BenchReports
import ClientComparison
import Foundation
import ResilienceHarness

/// `bench report DIR`: renders a report again from its files.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Render a run's report again (HTML, JUnit) from its report.json and trace.jsonl.",
        discussion: "Works for the reports of `bench`, `bench gate` and `bench compare`. With --png, also report.png: "
            + "the page's first screen (what failed and the grid) as a picture for a pull request, taken by a headless "
            + "Chromium or Chrome (exit 1 with how to install one when there is none; the HTML is written either way). "
            + "Example: swift run bench report Reports/20261123-180000-flaky-wifi --png"
    )

    @Argument(help: "A report directory written by `bench`, `bench gate` or `bench compare`.")
    var directory: String

    @Option(help: "Compare with this baseline file in the HTML report.")
    var baseline: String?

    @Flag(help: "Also write report.png, the page's first screen (1280 × 900), with a headless Chromium or Chrome.")
    var png = false

    @Option(help: "The browser that takes the picture (default: chromium, chromium-browser, google-chrome on the PATH).")
    var browser: String?

    func run() async throws {
        let files = ReportFiles(directory: URL(fileURLWithPath: directory))
        if Self.isComparison(files.reportJSON) { return try await rerenderComparison(files) }
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
        if png { await picture(written.reportHTML) }
    }

    /// `report.png` beside `html`, or the reason there is none (exit 1).
    private func picture(_ html: URL) async {
        let png = html.deletingLastPathComponent().appendingPathComponent(ReportPNG.fileName)
        do { try await ReportPNG.write(html: html, to: png, browser: browser) } catch {
            exitWithError("--png: \(error)", code: 1)
        }
        print("picture: \(png.path)")
    }

    /// Whether the report.json at `url` is a comparison's (`"kind": "comparison"`).
    static func isComparison(_ url: URL) -> Bool {
        struct Header: Decodable { var kind: String? }
        guard let data = try? Data(contentsOf: url) else { return false }
        return (try? JSONDecoder().decode(Header.self, from: data))?.kind == "comparison"
    }

    private func rerenderComparison(_ files: ReportFiles) async throws {
        if baseline != nil { exitBadInput("--baseline is for scenario runs; \(directory) holds a comparison") }
        let report: ComparisonReport
        let trace: [TraceEntry]
        do {
            report = try ComparisonJSON.decode(Data(contentsOf: files.reportJSON), path: files.reportJSON.path)
            trace = try TraceFile.read(from: files.traceJSONL)
        } catch {
            exitBadInput("\(error) (is \(directory) a report directory? it needs report.json and trace.jsonl)")
        }
        let written = try ReportWriter().write(report, trace: trace, to: files.directory)
        print("report: \(written.reportHTML.path)")
        if png { await picture(written.reportHTML) }
    }
}
