import AppProtocol
import ResilienceHarness
import Testing

@Suite struct PropertyLegalTransitionsTests {
    let id = "legal-transitions"

    @Test func aTypicalLifeIsLegal() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.state("d1", .suspended(.network), at: 2)
        b.state("d1", .suspended(.user), at: 3)
        b.state("d1", .downloading, at: 4)
        b.state("d1", .downloaded, at: 5)
        b.state("d1", .notDownloaded, at: 6)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed)
        expectEvidence(verdict, at: 6, contains: "download d1: 7 legal changes, last → notDownloaded")
    }

    @Test func anEdgeOutsideTheTableFails() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.state("d1", .suspended(.network), at: 2)
        b.state("d1", .downloaded, at: 3)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 3, contains: "download d1 suspended(network) → downloaded is not an edge of the transition table")
        #expect(verdict.evidence.count == 1)
    }

    @Test func aBrokenChainFails() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.change("d1", from: .downloading, to: .suspended(.network), at: 1)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 1, contains: "it was last reported requested at 0.000 s, so the change must start there")
    }

    @Test func aRelaunchMayStartOneStepAhead() {
        // The dead process persisted `downloading` but never reported it.
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.kill(at: 1)
        b.launch(after: .crash, at: 2)
        b.change("d1", from: .downloading, to: .suspended(.network), at: 3)
        #expect(evaluate(id, b).outcome == .passed)
    }

    @Test func aRelaunchMayNotJumpTwoSteps() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.kill(at: 1)
        b.launch(after: .crash, at: 2)
        b.change("d1", from: .downloaded, to: .notDownloaded, at: 3)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 3, contains: "or one step past it after the relaunch")
    }

    @Test func noChangesAreNotApplicable() {
        #expect(evaluate(id, TraceBuilder()).outcome == .notApplicable)
    }

    @Test func theTableMatchesTheDocumentedEdges() {
        #expect(LegalTransitions.isLegal(from: .requested, to: .suspended(.awaitingForeground)))
        #expect(LegalTransitions.isLegal(from: .downloading, to: .notDownloaded))
        #expect(LegalTransitions.isLegal(from: .licensePreloaded, to: .notDownloaded))
        #expect(LegalTransitions.isLegal(from: .suspended(.storage), to: .suspended(.network)))
        #expect(!LegalTransitions.isLegal(from: .suspended(.user), to: .suspended(.user)))
        #expect(!LegalTransitions.isLegal(from: .notDownloaded, to: .downloading))
        #expect(!LegalTransitions.isLegal(from: .downloaded, to: .failed))
        #expect(!LegalTransitions.isLegal(from: .canceling, to: .downloading))
        #expect(!LegalTransitions.isLegal(from: .failed, to: .requested))
        #expect(!LegalTransitions.isLegal(from: .requested, to: .downloaded))
    }
}
