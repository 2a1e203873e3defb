import Testing
@testable import Performance

/// The pass/miss decision: each kind of bound at and around its edge, the text a report
/// prints for it, and a figure's verdict with its precondition.
@Suite struct PerfTargetTests {
    @Test func atLeastPassesAtTheBoundAndMissesJustBelow() {
        let target = PerfTarget.atLeast(9, "Gbit/s")
        #expect(target.isMet(by: 9))
        #expect(target.isMet(by: 27.1))
        #expect(!target.isMet(by: 8.999))
        #expect(target.text == "≥ 9 Gbit/s")
    }

    @Test func atMostPassesAtTheBoundAndMissesJustAbove() {
        let target = PerfTarget.atMost(2, "ms")
        #expect(target.isMet(by: 2))
        #expect(target.isMet(by: -0.3))
        #expect(!target.isMet(by: 2.001))
        #expect(target.text == "≤ 2 ms")
    }

    @Test func belowMissesAtTheBound() {
        let target = PerfTarget(.below(100), text: "< 100%")
        #expect(target.isMet(by: 99.9))
        #expect(!target.isMet(by: 100))
    }

    /// Rate accuracy: achieved / target within 1 ± 0.02, on both sides.
    @Test func withinPassesInsideTheToleranceOnBothSides() {
        let target = PerfTarget.within(0.02, of: 1)
        #expect(target.text == "1 ± 0.02")
        #expect(target.isMet(by: 1))
        #expect(target.isMet(by: 0.985))
        #expect(target.isMet(by: 1.015))
        #expect(!target.isMet(by: 0.975))
        #expect(!target.isMet(by: 1.025))
    }

    @Test func equalPassesOnlyAtTheValue() {
        let target = PerfTarget(.equal(0), text: "0")
        #expect(target.isMet(by: 0))
        #expect(!target.isMet(by: 1))
    }

    @Test func notANumberMeetsNoTarget() {
        for target in [PerfTarget.atLeast(0), .atMost(0), .within(1, of: 0), PerfTarget(.below(1), text: "")] {
            #expect(!target.isMet(by: .nan))
        }
    }

    /// Targets are printed as the issue writes them: whole bounds without ".0".
    @Test func targetTextsReadAsWritten() {
        #expect(PerfTarget.atLeast(0.33).text == "≥ 0.33")
        #expect(PerfTarget.atLeast(0.95).text == "≥ 0.95")
        #expect(PerfTarget.atLeast(10_000, "req/s").text == "≥ 10000 req/s")
        #expect(PerfTarget.atLeast(2.5, "Gbit/s").text == "≥ 2.5 Gbit/s")
        #expect(PerfTarget.atMost(1.01).text == "≤ 1.01")
        #expect(PerfTarget.atMost(30, "µs").text == "≤ 30 µs")
    }

    @Test func aFigureWithoutTargetHasNoVerdict() {
        let figure = PerfFigure("direct loopback", 16.4, unit: "Gbit/s")
        #expect(figure.target == nil)
        #expect(figure.pass == nil)
        #expect(figure.display == "16.4 Gbit/s")
    }

    @Test func aFigurePassesOrMissesItsTarget() {
        let passed = PerfFigure("through proxy", 9.5, unit: "Gbit/s", target: .atLeast(9, "Gbit/s"))
        let missed = PerfFigure("through proxy", 6.74, unit: "Gbit/s", target: .atLeast(9, "Gbit/s"))
        #expect(passed.pass == true)
        #expect(passed.target == "≥ 9 Gbit/s")
        #expect(missed.pass == false)
    }

    /// A figure whose run did not complete misses even when its value meets the target.
    @Test func aFigureMissesWhenItsPreconditionFails() {
        let figure = PerfFigure("engine peak RSS", 50e6, unit: "B", target: .atMost(64e6), precondition: false)
        #expect(figure.pass == false)
        #expect(PerfFigure("engine peak RSS", 50e6, unit: "B", target: .atMost(64e6), precondition: true).pass == true)
    }

    @Test func theTallyCountsPassesMissesAndSectionsWithErrors() {
        let sections = [
            PerfSection(id: "a", title: "A", method: "", figures: [
                PerfFigure("x", 1, unit: "", target: .atLeast(1)),
                PerfFigure("y", 0, unit: "", target: .atLeast(1)),
                PerfFigure("z", 5, unit: ""),
            ]),
            PerfSection(id: "b", title: "B", method: "", figures: [PerfFigure("w", 3, unit: "", target: .atMost(3))],
                        error: "half of it failed"),
            PerfSection(id: "c", title: "C", method: "", error: "no wrk"),
        ]
        #expect(PerfTally(sections) == PerfTally(passed: 2, missed: 1, errors: 2))
        #expect(PerfTally([]) == PerfTally(passed: 0, missed: 0, errors: 0))
    }
}
