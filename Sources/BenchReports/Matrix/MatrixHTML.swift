import BenchResults
import Foundation

/// `matrix.html`: one self-contained page (inline CSS, no script, no external
/// reference): rows scenario × property, columns engine × profile, each cell pass /
/// fail / unsupported / error / n/a linking to that run's own `report.html` at the
/// scenario, with the detail as its tooltip; a shard's matrix, or one merged from shards,
/// says which above the grid. XHTML-compatible, like `report.html`.
/// Stateless; call from any thread.
public enum MatrixHTML {
    /// The file name inside the matrix's directory.
    public static let fileName = "matrix.html"

    /// The page for `matrix`.
    public static func render(_ matrix: Matrix, title: String = "Deadzone conformance matrix") -> String {
        let text = XMLText.content
        let attribute = XMLText.attribute
        var html = """
            <!DOCTYPE html>
            <html xmlns="http://www.w3.org/1999/xhtml" lang="en"><head><meta charset="utf-8"/>
            <title>\(text(title))</title>
            <style>
            body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
            table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
            th.col{writing-mode:horizontal-tb;font-weight:600}td.cell{text-align:center;min-width:6em}
            td.cell a{display:block;color:inherit;text-decoration:none}
            .pass{background:#d9f2d9}.fail{background:#f8d0d0;font-weight:600}.unsupported{background:#e4e4f4}
            .error{background:#f9e0b0;font-weight:600}.unmet{background:#ffe0b2;color:#e65100;font-weight:600}.na{color:#888}.notrun{color:#888;background:#f2f2f2}
            tr.scenario td{border-top:2px solid #888}tr.scenario td.name{font-weight:600}
            .small{font-size:12px;color:#555}
            </style></head><body>
            <h1>\(text(title))</h1>
            <p>Rows: each scenario (its own row says whether it was played and held as a whole), then each property it judged. Columns: each engine under each profile. A cell links to that run's report at the scenario; hover it for the verdict. <b>unsupported</b>: the engine's hello does not declare a capability the scenario needs (never counted as passed). <b>precondition unmet</b>: the run did not create the situation the scenario asserts this property in, so its verdict proves nothing (never counted as passed). Below, each run's <b>situations created</b>: how many of the situation model's meaningful pairs (docs/situations.md) its trace shows; a property that passed where an engine created fewer situations was tested less.</p>

            """
        let provenance = ShardProvenance.facts(shard: matrix.shard, mergedFrom: matrix.mergedFrom)
        if !provenance.isEmpty {
            // A list, not a table: the grid stays the page's first table.
            html += "<ul class=\"shards\">\n"
                + provenance.map { "<li><b>\(text($0.key))</b>: \(text($0.value))</li>\n" }.joined()
                + "</ul>\n"
        }
        html += "<table><thead><tr><th>scenario</th><th>property</th>"
        for column in matrix.columns {
            html += "<th class=\"col\">\(text(column.agent))<br/><span class=\"small\">\(text(column.profile))</span>"
                + "<br/><a class=\"small\" href=\"\(attribute(column.reportPage))\">report</a></th>"
        }
        html += "</tr></thead><tbody>\n"
        for row in matrix.rows {
            let isScenario = row.property == Matrix.scenarioRow
            html += isScenario ? "<tr class=\"scenario\">" : "<tr>"
            html += "<td class=\"name\">\(isScenario ? text(row.scenario) : "")</td><td>\(text(isScenario ? "the scenario" : row.property))</td>"
            for cell in row.cells {
                let label = text(cell.outcome.rawValue)
                let inner = cell.link.map { "<a href=\"\(attribute($0))\" title=\"\(attribute(cell.detail))\">\(label)</a>" }
                    ?? "<span title=\"\(attribute(cell.detail))\">\(label)</span>"
                html += "<td class=\"cell \(cssClass(cell.outcome))\">\(inner)</td>"
            }
            html += "</tr>\n"
        }
        html += "</tbody></table>\n<h2>Engines</h2>\n<table><thead><tr><th>engine</th><th>profile</th><th>command</th><th>app</th>"
            + "<th>scenarios</th><th>situations created</th><th>failed properties</th></tr></thead><tbody>\n"
        for (column, summary) in zip(matrix.columns, matrix.summary) {
            let tally = MatrixOutcome.allCases.compactMap { outcome in
                summary.scenarios[outcome.rawValue].map { "\($0) \(outcome.rawValue)" }
            }.joined(separator: ", ")
            html += "<tr><td>\(text(column.agent))</td><td>\(text(column.profile))</td><td><code>\(text(column.command))</code></td>"
                + "<td>\(text(column.app ?? "-"))</td><td>\(text(column.error.map { "could not run: \($0)" } ?? tally))</td>"
                + "<td>\(text(column.coverageText ?? "-"))</td>"
                + "<td>\(text(summary.failedProperties.isEmpty ? "none" : summary.failedProperties.joined(separator: "; ")))</td></tr>\n"
        }
        html += "</tbody></table>\n</body></html>\n"
        return html
    }

    static func cssClass(_ outcome: MatrixOutcome) -> String {
        switch outcome {
        case .pass: "pass"
        case .fail: "fail"
        case .unsupported: "unsupported"
        case .error: "error"
        case .preconditionUnmet: "unmet"
        case .notApplicable: "na"
        case .notRun: "notrun"
        }
    }
}

/// The matrix's `junit.xml`: one `<testsuite name="<engine> @ <profile>">` per column,
/// one `<testcase classname="<scenario>" name="<property>">` per row: a `<failure>` for
/// fail and for precondition unmet (`type="precondition-unmet"`), an `<error>` for error, `<skipped>` for unsupported (`unsupported: <capability>`),
/// n/a and not run; `<properties>` as in a run's `junit.xml` for a shard or a merge. Stateless.
public enum MatrixJUnit {
    public static func render(_ matrix: Matrix) -> String {
        let attribute = XMLText.attribute
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n<testsuites name=\"deadzone matrix\">\n"
        let properties = JUnitReport.shardProperties(ShardProvenance.facts(shard: matrix.shard, mergedFrom: matrix.mergedFrom))
        for (index, column) in matrix.columns.enumerated() {
            let cells = matrix.rows.map { ($0, $0.cells[index]) }
            let count = { (outcomes: [MatrixOutcome]) in String(cells.filter { outcomes.contains($0.1.outcome) }.count) }
            xml += "  <testsuite name=\"\(attribute(column.agent + " @ " + column.profile))\" tests=\"\(cells.count)\""
                + " failures=\"\(count([.fail, .preconditionUnmet]))\" errors=\"\(count([.error]))\""
                + " skipped=\"\(count([.unsupported, .notApplicable, .notRun]))\">\n" + properties
            for (row, cell) in cells {
                xml += "    <testcase classname=\"\(attribute(row.scenario))\" name=\"\(attribute(row.property))\">"
                switch cell.outcome {
                case .pass: break
                case .fail: xml += "<failure message=\"\(attribute(cell.detail))\" type=\"fail\"/>"
                case .preconditionUnmet: xml += "<failure message=\"\(attribute(cell.detail))\" type=\"precondition-unmet\"/>"
                case .error: xml += "<error message=\"\(attribute(cell.detail))\" type=\"error\"/>"
                case .unsupported, .notApplicable, .notRun:
                    let message = cell.outcome == .unsupported ? cell.detail : "\(cell.outcome.rawValue): \(cell.detail)"
                    xml += "<skipped message=\"\(attribute(message))\"/>"
                }
                xml += "</testcase>\n"
            }
            xml += "  </testsuite>\n"
        }
        return xml + "</testsuites>\n"
    }
}
