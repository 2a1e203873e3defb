import BenchReports
import Foundation
import BenchResults
import BenchVocabulary
import Testing

/// A scenario the app lacks a capability for is `unsupported: <capability>` in every
/// format, never passed; it does not fail a run in which another scenario was played.
@Suite struct UnsupportedReportTests {
    static func report(alsoPlayed: Bool) -> RunReport {
        var report = SampleRun.report()
        report.scenarios = (alsoPlayed ? [report.scenarios[0]] : []) + [
            ScenarioResult(
                name: "license-before-background", summary: "Protected downloads, then the background.", verdicts: [],
                metrics: ScenarioMetrics(), startNanoseconds: 1, endNanoseconds: 2, unsupported: ["licenses", "rentals"])
        ]
        report.run.agent = "python3 my_agent.py"
        report.run.app = "my agent 0.1"
        return report
    }

    @Test func anUnsupportedScenarioNeverPassesButDoesNotFailARunThatPlayedAnother() throws {
        let mixed = Self.report(alsoPlayed: true)
        #expect(mixed.scenarios[0].passed && !mixed.scenarios[1].passed)
        #expect(mixed.passed, "an unsupported scenario must not fail the run")
        #expect(!Self.report(alsoPlayed: false).passed, "a run that played nothing must fail")
        #expect(mixed.unsupportedScenarios.map(\.name) == ["license-before-background"])
        // report.json keeps it, and the agent, through a round trip.
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let decoded = try decoder.decode(RunReport.self, from: try ReportJSON.encode(mixed))
        #expect(decoded.scenarios[1].unsupported == ["licenses", "rentals"])
        #expect(decoded.run.agent == "python3 my_agent.py" && decoded.run.app == "my agent 0.1")
    }

    @Test func junitSkipsItWithTheCapabilityAndHTMLShowsIt() throws {
        let report = Self.report(alsoPlayed: true)
        let root = try ParsedElement.parse(Data(JUnitReport.render(report).utf8))
        let suite = try #require(root.elements("testsuite").first { $0.attributes["name"] == "license-before-background" })
        let skipped = try #require(suite.elements("skipped").first)
        #expect(skipped.attributes["message"] == "unsupported: licenses, rentals")
        #expect(suite.elements("failure").isEmpty && suite.elements("error").isEmpty && suite.attributes["skipped"] == "1")
        #expect(root.attributes["skipped"] == String(report.scenarios[0].verdicts.filter { $0.outcome == .notApplicable }.count + 1))

        let html = try HTMLReport.render(report, trace: [])
        #expect(html.contains(#"<span class="badge na">unsupported: licenses, rentals</span>"#), "no status badge")
        #expect(html.contains("license-before-background (licenses, rentals)"), "the run facts do not name it")
        #expect(html.contains("python3 my_agent.py") && html.contains("my agent 0.1"))
    }
}
