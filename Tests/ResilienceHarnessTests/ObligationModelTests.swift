import AppProtocol
import BenchCore
import ResilienceHarness
import Testing

/// `ObligationModel`: what a download owes at each instant, from the world and the
/// harness's actions alone (docs/obligations.md, "What a download owes").
@Suite struct ObligationModelTests {
    /// d1 (WiFi only) requested at 0 s; paused at 4 s, killed at 8 s and relaunched
    /// after `termination` at 9 s; WiFi down 12–16 s; resumed at 20 s; then `end`.
    static func trace(after termination: RelaunchKind = .crash, removeAt: Double? = nil) -> TraceBuilder {
        var b = TraceBuilder()
        b.interface(.wifi, up: true, at: 0)
        b.interface(.cellular, up: false, mode: .refuse, at: 0)
        b.launch(after: .clean, at: 0)
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.userAction("pause", "d1", at: 4)
        b.state("d1", .suspended(.user), at: 4.05)
        b.kill(at: 8)
        b.launch(after: termination, at: 9)
        b.interface(.wifi, up: false, mode: .reset, at: 12)
        b.interface(.wifi, up: true, at: 16)
        b.userAction("resume", "d1", at: 20)
        if let removeAt { b.userAction("delete", "d1", at: removeAt) }
        b.note("end", at: 40)
        return b
    }

    static func model(_ b: TraceBuilder) -> (ObligationModel, TracedDownload) {
        let trace = b.trace
        return (ObligationModel(trace: trace, context: PropertyContext()), trace.downloads[0])
    }

    @Test func aPauseOutlivesACrashAndTheNetworkUntilTheUserResumes() {
        let (model, d1) = Self.model(Self.trace())
        #expect(model.intents["d1"]?.map(\.intent) == [.wanted, .paused, .wanted])
        #expect(model.owed(d1, at: ns(2)).contains(.transfer))
        for t in [5.0, 8.5, 10, 13, 17] {
            #expect(model.owed(d1, at: ns(t)) == [.holdPause, .failOnlyForCause], "at \(t) s")
        }
        #expect(model.owed(d1, at: ns(21)).contains(.transfer))
        #expect(model.owesCompletion(d1).owed)
    }

    @Test func whileTheAppIsDeadOrOfflineNoBytesAreOwed() {
        var b = TraceBuilder()
        b.interface(.wifi, up: true, at: 0)
        b.interface(.cellular, up: false, mode: .refuse, at: 0)
        b.launch(after: .clean, at: 0)
        b.request("d1", video: "clear", at: 0)
        b.kill(at: 5)
        b.launch(after: .crash, at: 7)
        b.interface(.wifi, up: false, mode: .reset, at: 10)
        b.interface(.wifi, up: true, at: 14)
        b.note("end", at: 30)
        let (model, d1) = Self.model(b)
        #expect(model.owed(d1, at: ns(1)).contains(.transfer))
        #expect(!model.owed(d1, at: ns(6)).contains(.transfer), "killed")
        #expect(model.owed(d1, at: ns(11)).contains(.waitForNetwork))
        #expect(!model.owed(d1, at: ns(11)).contains(.transfer))
        #expect(model.stretches(of: d1).filter { $0.owed.contains(.transfer) }.map { [$0.start, $0.end] }
            == [[0, ns(5)], [ns(7), ns(10)], [ns(14), ns(30)]])
    }

    @Test func aForceQuitLosesTheDownloadPausedOrNot() {
        let (model, d1) = Self.model(Self.trace(after: .userForceQuit))
        #expect(model.intents["d1"]?.map(\.intent) == [.wanted, .paused, .lost])
        #expect(model.intentSpan(of: d1, at: ns(8))?.intent == .lost, "from the kill")
        #expect(model.owed(d1, at: ns(10)) == [.failAtLaunch, .failOnlyForCause])
        #expect(!model.owesCompletion(d1).owed)
        #expect(model.owesCompletion(d1).why.contains("owes its failure"))
    }

    @Test func aRemovalIsForGood() {
        let (model, d1) = Self.model(Self.trace(removeAt: 25))
        #expect(model.intents["d1"]?.last?.intent == .removed)
        #expect(model.owed(d1, at: ns(30)) == [.leaveNothing, .failOnlyForCause])
        #expect(!model.owesCompletion(d1).owed)
    }

    @Test func aPauseNeverResumedOwesNoCompletion() {
        var b = TraceBuilder()
        b.launch(after: .clean, at: 0)
        b.request("d1", video: "clear", at: 0)
        b.userAction("pause", "d1", at: 4)
        b.userAction("resume", "d1", at: 5, error: "refused")  // refused: not a resume
        b.note("end", at: 10)
        let (model, d1) = Self.model(b)
        #expect(model.intents["d1"]?.map(\.intent) == [.wanted, .paused])
        let owed = model.owesCompletion(d1)
        #expect(!owed.owed && owed.why.contains("owes its pause, not its completion"))
    }

    /// A protected download in the background owes no bytes until its license arrives.
    @Test func aProtectedDownloadInTheBackgroundOwesBytesOnceItHoldsItsLicense() {
        var b = TraceBuilder()
        b.interface(.wifi, up: true, at: 0)
        b.launch(after: .clean, at: 0)
        b.protectedRequest("d1", video: "drm", asset: "drm-a", at: 0)
        b.lifecycle(foreground: false, at: 1)
        b.licenseIssued(asset: "drm-a", at: 5, delivery: 0.1)
        b.note("end", at: 20)
        let (model, d1) = Self.model(b)
        #expect(model.owed(d1, at: ns(0.5)).isSuperset(of: [.transfer, .licenseFirst]))
        #expect(!model.owed(d1, at: ns(3)).contains(.transfer))
        #expect(model.owed(d1, at: ns(6)).contains(.transfer))
    }
}
