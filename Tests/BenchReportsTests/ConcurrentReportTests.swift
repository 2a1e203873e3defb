import BenchReports
import BenchResults
import BenchVocabulary
import Foundation
import Testing

/// A run whose scenarios played concurrently: their windows overlap on the time axis,
/// so each timeline draws only the lines tagged with its scenario, and the page says how
/// many played at once and the load each saw.
@Suite struct ConcurrentReportTests {
    static func ns(_ seconds: Double) -> UInt64 { UInt64(seconds * 1e9) }

    static func scenario(_ name: String) -> ScenarioResult {
        ScenarioResult(
            name: name, summary: "", verdicts: [Verdict(property: "liveness", outcome: .passed, summary: "ok")],
            metrics: ScenarioMetrics(), startNanoseconds: ns(1), endNanoseconds: ns(20),
            load: ScenarioLoad(alongside: 1, harnessClockLateMaxSeconds: 0.012))
    }

    @Test func eachTimelineDrawsOnlyItsOwnScenariosLines() throws {
        let report = RunReport(
            run: RunMetadata(
                profile: "p", profilePath: "p.yaml", seed: 1, startedAt: Date(timeIntervalSince1970: 0), durationSeconds: 20,
                versions: [:], machine: [:], jobs: 2),
            scenarios: [Self.scenario("a"), Self.scenario("b")])
        let trace = [
            TraceEntry(t: Self.ns(2), .agent(.stateChanged(download: "only-in-a", from: .requested, to: .downloading)), scenario: "a"),
            TraceEntry(t: Self.ns(3), .agent(.stateChanged(download: "only-in-b", from: .requested, to: .downloading)), scenario: "b"),
        ]
        let html = try HTMLReport.render(report, trace: trace)
        let root = try ParsedElement.parse(Data(html.utf8))
        let downloads = root.elements("svg").map { svg in
            svg.elements("g").compactMap { $0.attributes["data-lane"] }.filter { $0.hasPrefix("download:") }
        }
        #expect(downloads == [["download:only-in-a"], ["download:only-in-b"]])
        #expect(html.contains("scenarios at once (--jobs)") && html.contains("with 1 other scenario, harness clock ≤ 12 ms late"))
    }
}
