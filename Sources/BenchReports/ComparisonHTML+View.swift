import BenchResults
import Foundation

/// What `compare.mustache` renders: the comparison as strings, every one XML-legal.
/// swift-mustache reads the fields by reflection, so their names are the template's keys.
struct ComparisonHTMLView {
    typealias Fact = HTMLReportView.Fact

    var profile: String
    var headline: String
    var run: [Fact]
    var versions: [Fact]
    var machine: [Fact]
    var modes: [ModeView]
    var rows: [RowView]
    var outcomes: [Fact]
    var clients: [ClientView]
    var runs: [RunView]
    var legend: [Fact]

    struct ModeView {
        var name: String
        var summary: String
        var seed: String
    }

    struct RowView {
        var client: String
        var cells: [CellView]
    }

    struct CellView {
        var mode: String
        var outcome: String
        var label: String
        var note: String
        var anchor: String
    }

    struct ClientView {
        var name: String
        var command: String
        var summary: String
        var validation: String
        var status: String
    }

    struct RunView {
        var anchor: String
        var client: String
        var mode: String
        var outcome: String
        var outputDetail: String
        var window: String
        var hasError: Bool
        var errorText: String
        var facts: [Fact]
        var hasStderr: Bool
        var stderr: String
        var svg: TimelineSVG?
    }
}

extension ComparisonHTMLView {
    init(report: ComparisonReport, timelines: [TimelineSVG?]) {
        let safe = XMLText.legal
        profile = safe(report.run.profile)
        let counts = Dictionary(grouping: report.runs, by: \.outcome).mapValues(\.count)
        headline = "\(report.runs.count) runs: "
            + ClientOutcome.allCases.compactMap { outcome in counts[outcome].map { "\($0) \(outcome.rawValue)" } }.joined(separator: ", ")
        let content = report.content
        run = [
            Fact(key: "profile", value: safe(report.run.profile)),
            Fact(key: "profile path", value: safe(report.run.profilePath)),
            Fact(key: "seed", value: String(report.run.seed)),
            Fact(key: "started", value: report.run.startedAt.formatted(.iso8601)),
            Fact(key: "duration", value: MetricComparison.format(report.run.durationSeconds) + " s"),
            Fact(key: "content", value: "\(content.video) \(content.variant): \(content.segments) segments, "
                + "\(MetricComparison.format(content.durationSeconds)) s, \(content.bytes) bytes, \(content.media) media"),
            Fact(key: "wifi link", value: safe(report.links["wifi"] ?? "-")),
            Fact(key: "cellular link", value: safe(report.links["cellular"] ?? "-")),
            Fact(key: "connection attempts traced", value: safe(report.connectTracing)),
        ]
        versions = HTMLReportView.facts(report.run.versions)
        machine = HTMLReportView.facts(report.run.machine)
        modes = report.modes.map { ModeView(name: $0.mode.rawValue, summary: safe($0.summary), seed: String($0.seed)) }
        rows = report.clients.map { entry in
            RowView(client: safe(entry.definition.name), cells: report.modes.map { mode in
                guard let run = report.run(client: entry.definition.name, mode: mode.mode) else {
                    return CellView(mode: mode.mode.rawValue, outcome: "not-run", label: "-", note: "", anchor: "")
                }
                return CellView(
                    mode: mode.mode.rawValue, outcome: run.outcome.rawValue, label: run.outcome.rawValue,
                    note: Self.cellNote(run), anchor: Self.anchor(run))
            })
        }
        outcomes = [
            Fact(key: "ok", value: "exited with success and the output is the whole content"),
            Fact(key: "silent-data-loss", value: "exited with success, but the output is missing or corrupt"),
            Fact(key: "failed", value: "exited with an error status (honest)"),
            Fact(key: "hung", value: "still running at the time limit; killed"),
            Fact(key: "not-run", value: "a tool it needs is missing, or its output cannot be judged here"),
        ]
        clients = report.clients.map { entry in
            ClientView(
                name: safe(entry.definition.name), command: safe(entry.definition.command),
                summary: safe(entry.definition.summary), validation: entry.definition.validation.rawValue,
                status: safe(entry.notRunReason.map { "no: \($0)" } ?? "yes"))
        }
        runs = zip(report.runs, timelines).map { run, svg in
            RunView(
                anchor: Self.anchor(run), client: safe(run.client), mode: run.mode.rawValue, outcome: run.outcome.rawValue,
                outputDetail: safe(run.output.map { "Output (\($0.method)): \($0.detail)." } ?? "No output judged."),
                window: MetricComparison.format(Double(run.startNanoseconds) / 1e9) + "–"
                    + MetricComparison.format(Double(run.endNanoseconds) / 1e9) + " s",
                hasError: run.error != nil, errorText: safe(run.error ?? ""), facts: Self.facts(run),
                hasStderr: !run.stderrTail.isEmpty, stderr: safe(run.stderrTail), svg: svg)
        }
        legend = HTMLReportView.legend.filter { !$0.value.hasPrefix("st-") && !$0.value.hasPrefix("lc-") }
    }

    static func anchor(_ run: ClientRunResult) -> String {
        TimelineSVG.cssName("\(run.client)-\(run.mode.rawValue)")
    }

    /// Under a cell: the wall time, and what went wrong in a few words.
    static func cellNote(_ run: ClientRunResult) -> String {
        let time = run.metrics.map { MetricComparison.format(($0.wallSeconds * 10).rounded() / 10) + " s" } ?? ""
        var note = time
        switch run.outcome {
        case .failed: note += " · exit \(run.exitStatus ?? -1)"
        case .silentDataLoss: note += " · exit \(run.exitStatus ?? -1)"
        case .notRun, .ok, .hung: break
        }
        if run.mode == .killRerun, let resumed = run.metrics?.resumed { note += resumed ? " · resumed" : " · started over" }
        return XMLText.legal(note)
    }

    static func facts(_ run: ClientRunResult) -> [Fact] {
        let safe = XMLText.legal
        var facts = [Fact(key: "command", value: safe(run.command))]
        for (index, attempt) in run.attempts.enumerated() {
            let status = attempt.exitStatus.map { "exit \($0)" } ?? "no status"
            facts.append(Fact(
                key: "attempt \(index + 1)",
                value: "pid \(attempt.pid), \(MetricComparison.format(Double(attempt.startNanoseconds) / 1e9))–"
                    + "\(MetricComparison.format(Double(attempt.endNanoseconds) / 1e9)) s, \(status)"
                    + (attempt.killed.map { ", killed (\($0))" } ?? "")))
        }
        if let metrics = run.metrics {
            facts.append(Fact(key: "wall time", value: MetricComparison.format(metrics.wallSeconds) + " s"))
            for (interface, bytes) in metrics.bytesByInterface.sorted(by: { $0.key < $1.key }) {
                facts.append(Fact(key: "bytes via \(safe(interface))", value: String(bytes)))
            }
            facts.append(Fact(key: "bytes sent by the origin", value: String(metrics.originBytes)))
            facts.append(Fact(key: "wasted bytes (received beyond one copy)", value: String(metrics.wastedBytes)))
            facts.append(Fact(key: "bytes the origin sent more than once", value: String(metrics.originBytesSentAgain)))
            if let requests = metrics.requestsDuringOutages {
                facts.append(Fact(key: "requests during outages", value: String(requests)))
            }
            if let connects = metrics.connectAttemptsDuringOutages {
                facts.append(Fact(key: "connection attempts during outages", value: String(connects)))
            }
            if let again = metrics.bytesFetchedAgain {
                facts.append(Fact(key: "bytes fetched again after the kill", value: String(again)))
            }
            if let resumed = metrics.resumed {
                facts.append(Fact(key: "rerun", value: resumed ? "resumed" : "started over"))
            }
        }
        return facts
    }
}
