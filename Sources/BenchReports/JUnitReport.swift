import BenchResults
import Foundation

/// `junit.xml`: the verdicts in the JUnit XML form CI systems display.
///
/// One `<testsuite>` per scenario, one `<testcase>` per verdict (`classname` the
/// scenario, `name` the property): a failed verdict carries a `<failure>` whose
/// message is the summary and whose body lists the evidence (`12.345 s  text`); a
/// not-applicable one is `<skipped message="not applicable: …"/>`; each precondition is a
/// testcase `precondition: <what>`, failed when not met; a scenario that
/// could not run to its end adds a testcase `scenario-run` with an `<error>`; a scenario
/// the app lacks a capability for is one testcase `scenario-run`
/// `<skipped message="unsupported: <capability>"/>`. A shard's report, or one merged from
/// shards, opens each `<testsuite>` with `<properties>` saying which (`ShardProvenance`).
/// Stateless; call from any thread.
public enum JUnitReport {
    /// The file name inside a run's report directory.
    public static let fileName = "junit.xml"
    /// The testcase name of a scenario's `error`.
    public static let scenarioErrorCaseName = "scenario-run"

    /// The document for `report`.
    public static func render(_ report: RunReport) -> String {
        // Downloads named as the timeline names them (`clear · 2926520a`).
        let report = report.namingDownloads
        let verdicts = report.scenarios.flatMap(\.verdicts)
        let preconditions = report.scenarios.flatMap(\.preconditions)
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += "<testsuites" + attributes([
            ("name", "deadzone \(report.run.profile)"),
            ("tests", String(verdicts.count + preconditions.count
                + report.scenarios.filter { $0.error != nil || $0.unsupported != nil }.count)),
            ("failures", String(verdicts.filter(\.failed).count + preconditions.filter { !$0.met }.count)),
            ("errors", String(report.scenarios.filter { $0.error != nil }.count)),
            ("skipped", String(verdicts.filter { $0.outcome == .notApplicable }.count + report.unsupportedScenarios.count)),
            ("time", seconds(report.run.durationSeconds)),
        ]) + ">\n"
        let properties = shardProperties(ShardProvenance.facts(shard: report.run.shard, mergedFrom: report.run.mergedFrom))
        for scenario in report.scenarios { xml += suite(scenario, startedAt: report.run.startedAt, properties: properties) }
        xml += "</testsuites>\n"
        return xml
    }

    /// `<properties>` naming the shard the report is, or the shards it was merged from
    /// (`deadzone.shard`, `deadzone.merged from`, `deadzone.shard 2/4`), for the first lines
    /// of every `<testsuite>`; empty for a report that is neither.
    static func shardProperties(_ facts: [ShardProvenance.Fact]) -> String {
        guard !facts.isEmpty else { return "" }
        return "    <properties>\n"
            + facts.map { "      <property" + attributes([("name", "deadzone.\($0.key)"), ("value", $0.value)]) + "/>\n" }.joined()
            + "    </properties>\n"
    }

    private static func suite(_ scenario: ScenarioResult, startedAt: Date, properties: String) -> String {
        if let text = scenario.unsupportedText {
            return "  <testsuite" + attributes([
                ("name", scenario.name), ("tests", "1"), ("failures", "0"), ("errors", "0"), ("skipped", "1"),
                ("time", "0"), ("timestamp", startedAt.formatted(.iso8601)),
            ]) + ">\n" + properties + "    <testcase" + attributes([("classname", scenario.name), ("name", scenarioErrorCaseName)])
                + ">\n      <skipped" + attributes([("message", text)]) + "/>\n    </testcase>\n  </testsuite>\n"
        }
        let errors = scenario.error == nil ? 0 : 1
        var xml = "  <testsuite" + attributes([
            ("name", scenario.name),
            ("tests", String(scenario.verdicts.count + scenario.preconditions.count + errors)),
            ("failures", String(scenario.verdicts.filter(\.failed).count + scenario.preconditions.filter { !$0.met }.count)),
            ("errors", String(errors)),
            ("skipped", String(scenario.verdicts.filter { $0.outcome == .notApplicable }.count)),
            ("time", seconds(Double(scenario.endNanoseconds &- scenario.startNanoseconds) / 1e9)),
            ("timestamp", startedAt.formatted(.iso8601)),
        ]) + ">\n" + properties
        for precondition in scenario.preconditions { xml += testcase(precondition, scenario: scenario.name) }
        for verdict in scenario.verdicts { xml += testcase(verdict, scenario: scenario.name) }
        if let error = scenario.error {
            xml += "    <testcase" + attributes([("classname", scenario.name), ("name", scenarioErrorCaseName)]) + ">\n"
            xml += "      <error" + attributes([("message", error), ("type", "scenarioError")]) + ">"
            xml += XMLText.content(error) + "</error>\n"
            xml += "    </testcase>\n"
        }
        xml += "  </testsuite>\n"
        return xml
    }

    private static func testcase(_ verdict: Verdict, scenario: String) -> String {
        let open = "    <testcase" + attributes([("classname", scenario), ("name", verdict.property)])
        switch verdict.outcome {
        case .passed:
            return open + ">\n      <system-out>" + XMLText.content(body(verdict)) + "</system-out>\n    </testcase>\n"
        case .notApplicable:
            return open + ">\n      <skipped" + attributes([("message", "not applicable: \(verdict.summary)")])
                + "/>\n    </testcase>\n"
        case .failed:
            return open + ">\n      <failure" + attributes([("message", verdict.summary), ("type", "propertyFailed")])
                + ">" + XMLText.content(body(verdict)) + "</failure>\n    </testcase>\n"
        }
    }

    /// A precondition as a testcase named `precondition: <name>`, failed when not met.
    private static func testcase(_ precondition: PreconditionResult, scenario: String) -> String {
        let open = "    <testcase" + attributes([("classname", scenario), ("name", "precondition: \(precondition.name)")])
        guard !precondition.met else {
            return open + ">\n      <system-out>" + XMLText.content(precondition.detail) + "</system-out>\n    </testcase>\n"
        }
        return open + ">\n      <failure" + attributes([("message", precondition.detail), ("type", "preconditionNotMet")])
            + ">" + XMLText.content(precondition.detail) + "</failure>\n    </testcase>\n"
    }

    /// The summary, then one line per piece of evidence.
    static func body(_ verdict: Verdict) -> String {
        ([verdict.summary] + verdict.evidence.map { evidence in
            "\(seconds(Double(evidence.t) / 1e9)) s  \(evidence.text)"
                + (evidence.obligation.map { "  [broke: \($0)]" } ?? "")
        }).joined(separator: "\n")
    }

    private static func attributes(_ pairs: [(String, String)]) -> String {
        pairs.map { " \($0.0)=\"\(XMLText.attribute($0.1))\"" }.joined()
    }

    private static func seconds(_ value: Double) -> String {
        value.isFinite ? String(format: "%.3f", value) : "0"
    }
}
