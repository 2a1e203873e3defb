import BenchCore
import ClientComparison
import Foundation
import ResilienceHarness

/// Live progress of a comparison: one line per run, and while it runs a progress bar of
/// the bytes received (redrawn in place on a terminal, one line every 10 s otherwise).
final class ComparePrinter: Sendable {
    private let status: LiveStatusLine

    /// Prints to stderr when `toStandardError` (`--json` keeps stdout for JSON).
    init(toStandardError: Bool) {
        status = LiveStatusLine(toStandardError: toStandardError)
    }

    func header(_ options: ComparisonOptions) {
        let media = options.isRealMedia ? "real media" : "synthetic media"
        status.write("Deadzone \(DeadzoneVersion.current): \(options.clients.count) client\(options.clients.count == 1 ? "" : "s") × "
            + "\(options.modes.count) fault mode\(options.modes.count == 1 ? "" : "s") under \(options.profile.name) (seed \(options.seed), \(media))\n")
        for client in options.clients {
            if let reason = options.notRunReason(client) { status.write("  \(client.name): will not run: \(reason)\n") }
        }
    }

    func handle(_ progress: ComparisonProgress) {
        switch progress {
        case let .preparing(index, count):
            if index == 0 { status.write("preparing the content (\(count) segments)\n") }
        case .note(let text):
            status.write("note: \(text)\n")
        case let .runStarted(client, mode, index, count):
            status.write("[\(index + 1)/\(count)] \(client) × \(mode.rawValue)\n")
            status.restart()
        case let .running(client, mode, elapsed, limit, received, content, attempt):
            let fraction = content > 0 ? Double(received) / Double(content) : 0
            let line = "  \(LiveStatusLine.bar(fraction)) \(String(format: "%5.1f", elapsed.seconds)) s of \(Int(limit.seconds)) s  "
                + String(format: "%.1f MB received", Double(received) / 1e6) + (attempt > 1 ? " (rerun)" : "")
            status.update(line, seconds: elapsed.seconds, context: "\(client) × \(mode.rawValue)")
        case .runFinished(let run):
            status.clear()
            status.write("  \(CompareTable.cell(run, wide: true))"
                + (run.output.map { ": \($0.detail)" } ?? run.error.map { ": \($0)" } ?? "") + "\n")
        }
    }
}

/// The client × mode table printed at the end of a comparison.
enum CompareTable {
    static func render(_ report: ComparisonReport) -> String {
        let width = max(10, report.clients.map(\.definition.name.count).max() ?? 0) + 2
        let column = 18
        var lines = ["client".padding(toLength: width, withPad: " ", startingAt: 0)
            + report.modes.map { $0.mode.rawValue.padding(toLength: column, withPad: " ", startingAt: 0) }.joined()]
        for entry in report.clients {
            var line = entry.definition.name.padding(toLength: width, withPad: " ", startingAt: 0)
            for mode in report.modes {
                let text = report.run(client: entry.definition.name, mode: mode.mode).map { cell($0, wide: false) } ?? "-"
                line += text.padding(toLength: column, withPad: " ", startingAt: 0)
            }
            lines.append(line)
        }
        lines.append("")
        lines.append("ok: success and whole content · LOSS: success exit but content missing or corrupt (silent data loss) · "
            + "failed(N): exit status N · hung: killed at the time limit · -: not run")
        let missing = report.clients.filter { $0.notRunReason != nil }
        for entry in missing { lines.append("not run: \(entry.definition.name): \(entry.notRunReason ?? "")") }
        return lines.joined(separator: "\n")
    }

    /// `ok 12.3s`, `LOSS 10.1s`, `failed(1) 3.0s`, `hung`, `-`; with the kill-rerun verdict.
    static func cell(_ run: ClientRunResult, wide: Bool) -> String {
        let time = run.metrics.map { String(format: " %.1fs", $0.wallSeconds) } ?? ""
        var text: String
        switch run.outcome {
        case .ok: text = "ok" + time
        case .silentDataLoss: text = (wide ? "SILENT DATA LOSS" : "LOSS") + time
        case .failed: text = "failed(\(run.exitStatus ?? -1))" + time
        case .hung: text = "hung"
        case .notRun: text = wide ? "not run" : "-"
        }
        if run.mode == .killRerun, let resumed = run.metrics?.resumed { text += resumed ? " resumed" : " restart" }
        return text
    }
}
