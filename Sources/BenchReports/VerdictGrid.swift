import BenchResults

/// The top of `report.html`: what failed, one sentence each, then a grid with a row per
/// scenario and a column per property, each cell passed / failed / precondition unmet /
/// unsupported / not exercised (`ScenarioResult.cell`), linked to its evidence.
struct VerdictGrid {
    /// One line above the grid: a failed property, an unmet precondition or a scenario
    /// that could not run to its end.
    struct Failure {
        var scenario: String
        /// What failed; empty when it is the property named like the scenario (said once).
        var what: String
        /// Whether `what` is said (a stored value: the templates read stored properties).
        var hasWhat: Bool
        var sentence: String
        /// Where the page shows it: the failure's mark on the scenario's timeline, or the scenario.
        var href: String
    }

    struct Cell {
        var text: String
        var cssClass: String
        var title: String
        var href: String
    }

    struct Row {
        var scenario: String
        var href: String
        var status: String
        var statusClass: String
        var cells: [Cell]
        /// The scenario's metrics against the baseline (`3 within, 1 regressed`), on the gate's page.
        var metrics: String
        var metricsClass: String
    }

    var properties: [String]
    /// The page compares with a baseline: the grid has a metrics column.
    var hasBaseline: Bool
    var rows: [Row]
    var failures: [Failure]
    /// "7 scenarios × 13 properties: 60 passed, 1 failed, …".
    var tally: String

    init(_ report: RunReport, comparison: GateComparison? = nil) {
        let safe = XMLText.legal
        hasBaseline = comparison != nil
        let properties = report.judgedProperties
        self.properties = properties.map(safe)
        var counts: [PropertyCell: Int] = [:]
        rows = report.scenarios.enumerated().map { index, scenario in
            let anchor = ScenarioAnchors(index: index)
            let cells = properties.map { property in
                let cell = scenario.cell(property)
                counts[cell, default: 0] += 1
                let verdict = scenario.verdicts.first { $0.property == property }
                return Cell(
                    text: cell.symbol, cssClass: "cell-" + TimelineSVG.cssName(cell.rawValue),
                    title: safe((property == scenario.name ? "\(scenario.name) (its own property)" : "\(scenario.name) × \(property)")
                        + ": \(cell.rawValue)" + (verdict.map { ": " + $0.summary } ?? "")),
                    href: cell == .failed ? "#" + anchor.failure(property) : verdict == nil ? "#" + anchor.scenario
                        : "#" + anchor.verdict(property))
            }
            let (status, statusClass) = Self.status(scenario)
            let (metrics, metricsClass) = comparison.map { Self.metrics(scenario, $0) } ?? ("", "na")
            return Row(scenario: safe(scenario.name), href: "#" + anchor.scenario, status: status, statusClass: statusClass,
                       cells: cells, metrics: metrics, metricsClass: metricsClass)
        }
        failures = report.scenarios.enumerated().flatMap { index, scenario in Self.failures(scenario, index: index) }
        let order: [PropertyCell] = [.passed, .failed, .preconditionUnmet, .unsupported, .notExercised, .absent]
        tally = "\(report.scenarios.count) scenario\(report.scenarios.count == 1 ? "" : "s") × \(properties.count) "
            + "propert\(properties.count == 1 ? "y" : "ies"): "
            + order.compactMap { cell in counts[cell].map { "\($0) \(cell.rawValue)" } }.joined(separator: ", ")
    }

    /// `9 within, 1 regressed`: the scenario's metric rows by status, the failing ones first.
    private static func metrics(_ scenario: ScenarioResult, _ comparison: GateComparison) -> (String, String) {
        let rows = comparison.metrics(of: scenario.name)
        guard !rows.isEmpty else { return ("no metrics", "na") }
        let order: [(MetricComparison.Status, String)] = [
            (.regressed, "regressed"), (.missing, "missing"), (.invalid, "not finite"), (.withinTolerance, "within"),
            (.improved, "improved"), (.new, "new"), (.informational, "informational"),
        ]
        let text = order.compactMap { status, word in
            let count = rows.filter { $0.status == status }.count
            return count > 0 ? "\(count) \(word)" : nil
        }.joined(separator: ", ")
        let failing = rows.contains { [.regressed, .missing, .invalid].contains($0.status) }
        return (text, failing ? "fail" : "pass")
    }

    private static func status(_ scenario: ScenarioResult) -> (String, String) {
        if let text = scenario.unsupportedText { return (XMLText.legal(text), "na") }
        if scenario.passed { return ("passed", "pass") }
        return (scenario.error != nil ? "error" : "failed", "fail")
    }

    /// What failed in `scenario`, one sentence each: every failed property (its summary
    /// and when the harness first saw it), every unmet precondition, the error.
    static func failures(_ scenario: ScenarioResult, index: Int) -> [Failure] {
        let safe = XMLText.legal
        let anchor = ScenarioAnchors(index: index)
        var lines = scenario.verdicts.filter(\.failed).map { verdict in
            let when = verdict.evidence.first.map { first in
                verdict.summary.contains(first.text) ? " (at \(TimelineSVG.seconds(first.t)) s)"
                    : " First seen at \(TimelineSVG.seconds(first.t)) s: \(first.text)"
            } ?? ""
            return Failure(
                scenario: safe(scenario.name), what: verdict.property == scenario.name ? "" : safe(verdict.property),
                hasWhat: verdict.property != scenario.name, sentence: safe(verdict.summary + when),
                href: "#" + anchor.failure(verdict.property))
        }
        lines += scenario.preconditions.filter { !$0.met }.map {
            Failure(scenario: safe(scenario.name), what: safe("precondition \($0.name) not met"), hasWhat: true, sentence: safe($0.detail),
                    href: "#" + anchor.scenario)
        }
        if let error = scenario.error {
            lines.append(Failure(scenario: safe(scenario.name), what: "could not run to its end", hasWhat: true, sentence: safe(error),
                                 href: "#" + anchor.scenario))
        }
        return lines
    }
}

/// The ids `report.html` gives a scenario's parts, for links from the grid.
struct ScenarioAnchors {
    var index: Int

    /// The scenario's section.
    var scenario: String { "scenario-\(index + 1)" }
    /// The row of `property`'s verdict in the verdict list.
    func verdict(_ property: String) -> String { "verdict-\(index + 1)-\(TimelineSVG.cssName(property))" }
    /// The mark of `property`'s failure on the scenario's timeline.
    func failure(_ property: String) -> String { "failure-\(index + 1)-\(TimelineSVG.cssName(property))" }
}
