import BenchResults
import Foundation

/// `junit.xml` of a comparison: one `<testsuite>` per client, one `<testcase>` per fault
/// mode (`classname` the client, `name` the mode). A run that is not `ok` is a
/// `<failure>` whose type is its outcome (`silent-data-loss`, `failed`, `hung`) and
/// whose body says what the output check found; a run that could not be made is
/// `<skipped>`. Stateless; call from any thread.
public enum ComparisonJUnit {
    /// The document for `report`.
    public static func render(_ report: ComparisonReport) -> String {
        let failing = report.runs.filter { $0.outcome != .ok && $0.outcome != .notRun }
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += "<testsuites" + attributes([
            ("name", "deadzone compare \(report.run.profile)"),
            ("tests", String(report.runs.count)),
            ("failures", String(failing.count)),
            ("errors", "0"),
            ("skipped", String(report.runs.filter { $0.outcome == .notRun }.count)),
            ("time", seconds(report.run.durationSeconds)),
        ]) + ">\n"
        for entry in report.clients {
            let runs = report.runs.filter { $0.client == entry.definition.name }
            xml += "  <testsuite" + attributes([
                ("name", entry.definition.name),
                ("tests", String(runs.count)),
                ("failures", String(runs.filter { $0.outcome != .ok && $0.outcome != .notRun }.count)),
                ("errors", "0"),
                ("skipped", String(runs.filter { $0.outcome == .notRun }.count)),
                ("timestamp", report.run.startedAt.formatted(.iso8601)),
            ]) + ">\n"
            for run in runs { xml += testcase(run) }
            xml += "  </testsuite>\n"
        }
        xml += "</testsuites>\n"
        return xml
    }

    private static func testcase(_ run: ClientRunResult) -> String {
        let time = run.metrics.map { seconds($0.wallSeconds) } ?? "0"
        let open = "    <testcase" + attributes([("classname", run.client), ("name", run.mode.rawValue), ("time", time)])
        let detail = run.output.map { "output (\($0.method)): \($0.detail)" } ?? (run.error ?? "not run")
        let body = ([detail, "command: \(run.command)", "exit status: \(run.exitStatus.map(String.init) ?? "none")"]
            + (run.stderrTail.isEmpty ? [] : ["stderr:", run.stderrTail])).joined(separator: "\n")
        switch run.outcome {
        case .ok:
            return open + ">\n      <system-out>" + XMLText.content(body) + "</system-out>\n    </testcase>\n"
        case .notRun:
            return open + ">\n      <skipped" + attributes([("message", run.error ?? "not run")]) + "/>\n    </testcase>\n"
        case .silentDataLoss, .failed, .hung:
            let message = "\(run.outcome.rawValue): \(detail)"
            return open + ">\n      <failure" + attributes([("message", message), ("type", run.outcome.rawValue)]) + ">"
                + XMLText.content(body) + "</failure>\n    </testcase>\n"
        }
    }

    private static func attributes(_ pairs: [(String, String)]) -> String {
        pairs.map { " \($0.0)=\"\(XMLText.attribute($0.1))\"" }.joined()
    }

    private static func seconds(_ value: Double) -> String {
        value.isFinite ? String(format: "%.3f", value) : "0"
    }
}
