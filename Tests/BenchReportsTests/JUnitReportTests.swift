import BenchReports
import Foundation
import BenchResults
import BenchVocabulary
import Testing

@Suite struct JUnitReportTests {
    let root: ParsedElement

    init() throws {
        root = try ParsedElement.parse(Data(JUnitReport.render(SampleRun.report()).utf8))
    }

    @Test func oneSuitePerScenarioOneCasePerVerdict() throws {
        #expect(root.name == "testsuites")
        let suites = root.elements("testsuite")
        #expect(suites.map { $0.attributes["name"] } == ["auto-suspend", "crash-recovery", "time-limit"])
        // 6 verdicts and the time-limit scenario's error.
        let cases = root.elements("testcase")
        #expect(cases.count == 7)
        #expect(root.attributes["tests"] == "7")
        #expect(root.elements("failure").count == 1 && root.attributes["failures"] == "1")
        #expect(root.elements("skipped").count == 2 && root.attributes["skipped"] == "2")
        #expect(root.elements("error").count == 1 && root.attributes["errors"] == "1")
        let crash = try #require(suites.first { $0.attributes["name"] == "crash-recovery" })
        #expect(crash.attributes["tests"] == "3" && crash.attributes["failures"] == "1" && crash.attributes["skipped"] == "1")
        #expect(crash.attributes["time"] == "13.000")
        #expect(crash.elements("testcase").map { $0.attributes["classname"] } == Array(repeating: "crash-recovery", count: 3))
        #expect(crash.elements("testcase").map { $0.attributes["name"] }
            == ["legal-transitions", "recovery-after-crash", "license-before-background"])
    }

    @Test func aFailureCarriesTheSummaryAndTheEvidenceEscaped() throws {
        let failure = try #require(root.elements("failure").first)
        // The parser gives back the original text: `<&"'` survived the escaping; the
        // control character, which XML cannot carry, became U+FFFD.
        let expected = SampleRun.hostileText.replacingOccurrences(of: "\u{1}", with: "\u{FFFD}")
        #expect(failure.attributes["message"] == expected)
        let lines = failure.allText.split(separator: "\n").map(String.init)
        #expect(lines == [expected, "16.000 s  killed <pid 42>", "18.250 s  GET /seg3.ts again & again"])
    }

    @Test func notApplicableIsSkippedWithTheReason() {
        let messages = root.elements("skipped").compactMap { $0.attributes["message"] }
        #expect(messages == ["not applicable: cellular never up", "not applicable: no protected download"])
    }

    @Test func aScenarioErrorIsAnErrorTestcase() throws {
        let error = try #require(root.elements("error").first)
        #expect(error.attributes["message"] == "time limit 4 s passed <&>")
        let testcase = try #require(root.elements("testcase").first { $0.children.contains { $0 === error } })
        #expect(testcase.attributes["classname"] == "time-limit")
        #expect(testcase.attributes["name"] == JUnitReport.scenarioErrorCaseName)
    }

    @Test func theRawTextHasNoUnescapedMarkup() {
        let xml = JUnitReport.render(SampleRun.report())
        #expect(!xml.contains("<seg3>") && !xml.contains("<pid 42>") && !xml.contains("\u{1}"))
        #expect(xml.contains("&lt;seg3&gt; fetched twice &amp; &quot;again&quot;"))
    }
}
