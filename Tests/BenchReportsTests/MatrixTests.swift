import BenchReports
import Foundation
import BenchResults
import Testing

/// The matrix built from fake runs: one cell per (scenario × property, engine ×
/// profile), each outcome as the run found it, and the three files that show it.
@Suite struct MatrixTests {
    static func scenario(_ name: String, _ verdicts: [(String, Verdict.Outcome)], error: String? = nil,
                         unsupported: [String]? = nil) -> ScenarioResult {
        ScenarioResult(
            name: name, summary: "s", verdicts: verdicts.map { Verdict(property: $0.0, outcome: $0.1, summary: "\($0.0) \($0.1.rawValue)") },
            metrics: ScenarioMetrics(), startNanoseconds: 0, endNanoseconds: 1, error: error, unsupported: unsupported)
    }

    static func report(_ scenarios: [ScenarioResult], app: String) -> RunReport {
        var report = SampleRun.report()
        report.scenarios = scenarios
        report.run.app = app
        return report
    }

    /// deadzone passes both; a variant fails one property; a small engine lacks licenses
    /// (unsupported) and broke the protocol in the other; a fourth could not start.
    static func matrix() -> Matrix {
        let good = report([
            scenario("housekeeping", [("pause-holds", .passed), ("integrity", .passed)]),
            scenario("license-before-background", [("license-before-background", .passed), ("integrity", .notApplicable)]),
        ], app: "deadzone 0.5")
        let variant = report([
            scenario("housekeeping", [("pause-holds", .failed), ("integrity", .passed)]),
            scenario("license-before-background", [("license-before-background", .passed), ("integrity", .notApplicable)]),
        ], app: "deadzone 0.5")
        let small = report([
            scenario("housekeeping", [("pause-holds", .passed), ("integrity", .notApplicable)], error: "protocol error: line 6 <bad>"),
            scenario("license-before-background", [], unsupported: ["licenses"]),
        ], app: "mine 0.1")
        return Matrix.build([
            (MatrixColumn(agent: "deadzone", command: "bench agent", profile: "flaky-wifi", reportDirectory: "deadzone--flaky-wifi"), good),
            (MatrixColumn(agent: "pause-ignored", command: "bench agent --misbehave x", profile: "flaky-wifi", reportDirectory: "v--f"), variant),
            (MatrixColumn(agent: "mine", command: "python3 mine.py", profile: "flaky-wifi", reportDirectory: "mine--flaky-wifi"), small),
            (MatrixColumn(agent: "broken", command: "nope", profile: "flaky-wifi", reportDirectory: "b--f", error: "no such file"), nil),
        ])
    }

    @Test func everyCellIsWhatItsRunFound() throws {
        let matrix = Self.matrix()
        let table = matrix.rows.map { "\($0.scenario) \($0.property): " + $0.cells.map(\.outcome.rawValue).joined(separator: " ") }
        #expect(table == [
            "housekeeping (scenario): pass fail error not run",
            "housekeeping pause-holds: pass fail error not run",
            // A scenario that did not run to its end: what did not fail reads error, not n/a or pass.
            "housekeeping integrity: pass pass error not run",
            "license-before-background (scenario): pass pass unsupported not run",
            "license-before-background license-before-background: pass pass unsupported not run",
            "license-before-background integrity: n/a n/a unsupported not run",
        ], "\(table.joined(separator: "\n"))")
        let unsupported = matrix.rows[3].cells[2]
        #expect(unsupported.detail == "unsupported: licenses" && unsupported.link == "mine--flaky-wifi/report.html#scenario-2")
        #expect(matrix.rows[0].cells[3].detail == "no such file" && matrix.rows[0].cells[3].link == nil)
        #expect(matrix.columns.map(\.app) == ["deadzone 0.5", "deadzone 0.5", "mine 0.1", nil])
        let summary = matrix.summary
        #expect(summary[1].failedProperties == ["housekeeping: pause-holds"] && summary[1].scenarios == ["fail": 1, "pass": 1])
        #expect(summary[2].scenarios == ["error": 1, "unsupported": 1] && summary[0].failedProperties.isEmpty)
    }

    @Test func eachColumnSaysTheSituationsItsRunCreated() throws {
        let pair = { (incident: String) in SituationPair(incident: incident, context: "phase:mid-segment") }
        var measured = Self.report([Self.scenario("housekeeping", [("pause-holds", .passed)])], app: "deadzone 0.5")
        measured.coverage = RunCoverage(meaningful: [
            MeaningfulPairCoverage(pair: pair("user.pause"), properties: ["pause-holds"], why: "w", scenarios: ["housekeeping"]),
            MeaningfulPairCoverage(pair: pair("lifecycle.kill-crash"), properties: ["crash-recovery"], why: "w", scenarios: []),
        ], otherPairs: [])
        var unmeasured = measured
        unmeasured.coverage = nil
        let matrix = Matrix.build([
            (MatrixColumn(agent: "deadzone", command: "bench agent", profile: "p", reportDirectory: "d"), measured),
            (MatrixColumn(agent: "old", command: "bench agent", profile: "p", reportDirectory: "o"), unmeasured),
        ])
        #expect(matrix.columns[0].coverageText == "1 of 2 meaningful situation pairs (uncovered: lifecycle.kill-crash × phase:mid-segment)")
        #expect(matrix.columns[1].coverageText == nil, "a report without coverage claims none")
        #expect(matrix.summary[0].line == "deadzone @ p: 1 pass; situations: 1 of 2 pairs")
        #expect(matrix.summary[1].line == "old @ p: 1 pass")
        let html = MatrixHTML.render(matrix)
        #expect(html.contains("<td>1 of 2 meaningful situation pairs (uncovered: lifecycle.kill-crash × phase:mid-segment)</td>"), "\(html)")
        let decoded = try JSONDecoder().decode(Matrix.self, from: try JSONEncoder().encode(matrix))
        #expect(decoded.columns == matrix.columns)
    }

    @Test func thePageJSONAndJUnitShowEveryCell() throws {
        let matrix = Self.matrix()
        let html = MatrixHTML.render(matrix)
        let page = try ParsedElement.parse(Data(html.dropFirst("<!DOCTYPE html>\n".count).utf8))
        let cells = page.elements("td").filter { ($0.attributes["class"] ?? "").hasPrefix("cell ") }
        #expect(cells.count == 6 * 4)
        #expect(cells.map { $0.attributes["class"]! }.filter { $0 == "cell unsupported" }.count == 3)
        #expect(html.contains(#"<a href="mine--flaky-wifi/report.html#scenario-1" title="protocol error: line 6 &lt;bad&gt;">error</a>"#))
        #expect(!html.contains("<script") && !html.contains("src=") && !html.contains(#"href="http"#), "not self-contained")

        let json = try JSONSerialization.jsonObject(with: try MatrixFiles.encode(matrix)) as? [String: Any]
        #expect((json?["rows"] as? [Any])?.count == 6 && (json?["summary"] as? [Any])?.count == 4)
        #expect(json?["schemaVersion"] as? Int == 1)

        let junit = try ParsedElement.parse(Data(MatrixJUnit.render(matrix).utf8))
        let suites = junit.elements("testsuite")
        #expect(suites.map { $0.attributes["name"] } == ["deadzone @ flaky-wifi", "pause-ignored @ flaky-wifi", "mine @ flaky-wifi", "broken @ flaky-wifi"])
        #expect(suites[1].attributes["failures"] == "2" && suites[2].attributes["errors"] == "3")
        #expect(suites[2].elements("skipped").compactMap { $0.attributes["message"] }.filter { $0 == "unsupported: licenses" }.count == 3)
    }

    /// A passed verdict of a property the scenario asserts, in a run that did not create
    /// its situation, is unproven: never a pass, on the page and in JUnit.
    @Test func aPropertyWhoseSituationWasNotCreatedIsNotAPass() throws {
        var unmet = Self.scenario("housekeeping", [("pause-holds", .passed), ("integrity", .passed)])
        unmet.preconditions = [PreconditionResult(name: "paused-while-bytes-flowed", met: false, detail: "no pause <&>")]
        unmet.asserts = ["pause-holds"]
        let matrix = Matrix.build([
            (MatrixColumn(agent: "mine", command: "m", profile: "p", reportDirectory: "m--p"), Self.report([unmet], app: "m 1")),
        ])
        #expect(matrix.rows.map { $0.cells[0].outcome } == [.fail, .preconditionUnmet, .pass])
        #expect(matrix.rows[1].cells[0].detail.hasPrefix("precondition not met: paused-while-bytes-flowed: no pause <&>;"))
        let junit = MatrixJUnit.render(matrix)
        #expect(junit.contains(#"failures="2""#))
        #expect(junit.contains(#"type="precondition-unmet""#))
        let page = MatrixHTML.render(matrix)
        #expect(page.contains(#"<td class="cell unmet">"#))
        _ = try ParsedElement.parse(Data(page.utf8))
    }
}
