import Foundation
import Testing
@testable import Performance

/// The JSON form of a report (what `--json` prints) and its text form (what the command prints).
@Suite struct PerfReportTests {
    static let sections = [
        PerfSection(id: "throughput", title: "Unshaped single-stream throughput", method: "One TCP stream.", figures: [
            PerfFigure("direct loopback", 16.4, unit: "Gbit/s"),
            PerfFigure("through proxy", 6.74, unit: "Gbit/s", target: .atLeast(9, "Gbit/s")),
            PerfFigure("ratio proxy/direct", 0.41, unit: "", display: "0.41", target: .atLeast(0.33)),
        ], notes: ["moved 3.8 GiB direct"], seconds: 6.5),
        PerfSection(id: "cpu", title: "CPU", method: "A child process.", error: "the child proxy died", seconds: 1),
    ]

    static let report = PerfRunReport(command: "bench perf proxy", quick: true, rateSeconds: 2, cpus: 2,
                                      machine: PerfMachineLoad(busy: 0.25, loadAverage: 1.5), sections: sections)

    @Test func theReportCountsItsOwnTally() {
        #expect((Self.report.passed, Self.report.missed, Self.report.errors) == (1, 1, 1))
        #expect(Self.report.tally == PerfTally(passed: 1, missed: 1, errors: 1))
    }

    /// The exact JSON `bench perf proxy --json` prints: keys sorted, slashes as typed, no
    /// `target`/`pass` on an informational figure, no `error` on a section without one.
    @Test func theJSONFormIsStable() throws {
        let text = String(decoding: try Self.report.jsonData(), as: UTF8.self)
        #expect(text == Self.expectedJSON)
    }

    @Test func theJSONFormDecodesBackToTheSameReport() throws {
        let decoded = try JSONDecoder().decode(PerfRunReport.self, from: try Self.report.jsonData())
        #expect(decoded == Self.report)
        let engine = PerfEngineRunReport(quick: false, linkBitsPerSecond: 50e6, resetProbabilityPerMiB: 0.25, seed: 7, cpus: 2,
                                         machine: PerfMachineLoad(busy: 0, loadAverage: 0), sections: Self.sections)
        let object = try JSONSerialization.jsonObject(with: try engine.jsonData()) as? [String: Any]
        #expect(object?["command"] as? String == "bench perf engine")
        #expect(Set(object?.keys.map { $0 } ?? []) == ["command", "quick", "linkBitsPerSecond", "resetProbabilityPerMiB", "seed",
                                                        "cpus", "busyBefore", "loadAverageBefore", "sections", "passed",
                                                        "missed", "errors"])
    }

    @Test func theSummaryListsJudgedFiguresErrorsAndTheTally() {
        #expect(PerfFormat.summary(Self.sections) == [
            "",
            "Summary",
            "-------",
            "section     figure                            measured        target          result",
            "------------------------------------------------------------------------------------",
            "throughput  through proxy                     6.74 Gbit/s     ≥ 9 Gbit/s      MISS",
            "throughput  ratio proxy/direct                0.41            ≥ 0.33          PASS",
            "cpu         (not measured)                    -               -               ERROR",
            "  the child proxy died",
            "",
            "1 passed, 1 missed, 1 section(s) with errors",
        ])
    }

    @Test func aSectionBodyShowsMethodFiguresNotesAndTime() {
        #expect(PerfFormat.heading(1, Self.sections[0].title) == [
            "", "1. Unshaped single-stream throughput", "------------------------------------",
        ])
        #expect(PerfFormat.body(Self.sections[0]) == [
            "   One TCP stream.",
            "   direct loopback                     16.4 Gbit/s",
            "   through proxy                       6.74 Gbit/s     target ≥ 9 Gbit/s    MISS",
            "   ratio proxy/direct                  0.41            target ≥ 0.33        PASS",
            "   - moved 3.8 GiB direct",
            "   (6.5 s)",
        ])
        #expect(PerfFormat.body(Self.sections[1]).suffix(2) == ["   ERROR: the child proxy died", "   (1.0 s)"])
    }

    @Test func theMachineLineWarnsWhenOtherWorkRuns() {
        #expect(PerfFormat.machine(PerfMachineLoad(busy: 0.05, loadAverage: 0.4))
            == "machine before the run: 5% of all CPUs busy, load average 0.40")
        #expect(PerfFormat.machine(PerfMachineLoad(busy: 0.25, loadAverage: 3)).hasSuffix(
            " - WARNING: other work is running; figures will be low and noisy"))
    }

    @Test func numbersKeepAboutThreeDigitsAndTextWraps() {
        #expect(PerfFormat.number(1234.4) == "1234")
        #expect(PerfFormat.number(12.34) == "12.3")
        #expect(PerfFormat.number(1.234) == "1.23")
        #expect(PerfFormat.number(0.1234) == "0.123")
        #expect(PerfFormat.wrap("aaa bbb ccc", width: 10, indent: "  ") == ["  aaa bbb", "  ccc"])
    }

    static let expectedJSON = """
        {
          "busyBefore" : 0.25,
          "command" : "bench perf proxy",
          "cpus" : 2,
          "errors" : 1,
          "loadAverageBefore" : 1.5,
          "missed" : 1,
          "passed" : 1,
          "quick" : true,
          "rateSeconds" : 2,
          "sections" : [
            {
              "figures" : [
                {
                  "display" : "16.4 Gbit/s",
                  "label" : "direct loopback",
                  "unit" : "Gbit/s",
                  "value" : 16.4
                },
                {
                  "display" : "6.74 Gbit/s",
                  "label" : "through proxy",
                  "pass" : false,
                  "target" : "≥ 9 Gbit/s",
                  "unit" : "Gbit/s",
                  "value" : 6.74
                },
                {
                  "display" : "0.41",
                  "label" : "ratio proxy/direct",
                  "pass" : true,
                  "target" : "≥ 0.33",
                  "unit" : "",
                  "value" : 0.41
                }
              ],
              "id" : "throughput",
              "method" : "One TCP stream.",
              "notes" : [
                "moved 3.8 GiB direct"
              ],
              "seconds" : 6.5,
              "title" : "Unshaped single-stream throughput"
            },
            {
              "error" : "the child proxy died",
              "figures" : [

              ],
              "id" : "cpu",
              "method" : "A child process.",
              "notes" : [

              ],
              "seconds" : 1,
              "title" : "CPU"
            }
          ]
        }
        """
}
