import Foundation

/// The client × mode table of a comparison as text: what `bench compare` prints at the
/// end, and the cell it prints as each run finishes. Pure functions of the report.
public enum ComparisonTable {
    /// One row per client, one column per fault mode, then the legend and who did not run.
    public static func render(_ report: ComparisonReport) -> String {
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
    public static func cell(_ run: ClientRunResult, wide: Bool) -> String {
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
