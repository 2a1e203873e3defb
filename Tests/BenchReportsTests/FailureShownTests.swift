import BenchReports
import BenchResults
import Foundation
import Testing

/// Every failed property is shown wherever a failure is (the console line, the summary
/// table, the HTML status), with an unmet precondition beside them, never instead.
@Suite struct FailureShownTests {
    /// SampleRun's crash-recovery scenario (recovery-after-crash failed), its precondition
    /// unmet and legal-transitions failed too.
    static func report(unmet: Bool = true) -> RunReport {
        var report = SampleRun.report()
        var scenario = report.scenarios[1]
        scenario.verdicts[0] = Verdict(property: "legal-transitions", outcome: .failed, summary: "downloaded → downloading")
        if unmet {
            scenario.preconditions = [PreconditionResult(name: "three crashes", met: false, detail: "only one kill counted")]
        }
        report.scenarios = [report.scenarios[0], scenario]
        return report
    }

    @Test func theConsoleLineNamesEveryFailedPropertyAndThePrecondition() {
        let line = Self.report().scenarios[1].outcomeLine
        #expect(line.hasPrefix("FAIL  legal-transitions, recovery-after-crash: downloaded → downloading; precondition "
            + "not met: three crashes: only one kill counted ("), "\(line)")
        let onlyUnmet = { () -> String in
            var report = Self.report()
            report.scenarios[1].verdicts = report.scenarios[1].verdicts.filter { !$0.failed }
            return report.scenarios[1].outcomeLine
        }()
        #expect(onlyUnmet.hasPrefix("FAIL  precondition not met: three crashes: only one kill counted ("), "\(onlyUnmet)")
    }

    @Test func theSummaryTableKeepsTheFailedPropertiesBesideThePrecondition() {
        let table = SummaryTable.render(Self.report())
        let row = table.split(separator: "\n").first { $0.hasPrefix("crash-recovery") }.map(String.init) ?? ""
        #expect(row.contains("FAIL") && row.contains("legal-transitions,recovery-after-crash,(precondition not met)"), "\(table)")
        let met = SummaryTable.render(Self.report(unmet: false))
        #expect(met.contains("legal-transitions,recovery-after-crash") && !met.contains("precondition"), "\(met)")
    }

    @Test func theHTMLStatusNamesTheFailedProperties() throws {
        let html = try HTMLReport.render(Self.report(), trace: [])
        #expect(html.contains("failed: legal-transitions, recovery-after-crash; precondition not met"), "no status")
    }
}
