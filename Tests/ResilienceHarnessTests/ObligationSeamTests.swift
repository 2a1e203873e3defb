import AppProtocol
import BenchCore
import BenchVocabulary
import ResilienceHarness
import Testing

/// The seams between properties (docs/obligations.md, "Seams"): for each, a right
/// engine's trace that a property's own window failed before the obligations model and
/// must pass, or a wrong engine's trace that every property passed and must fail, on the
/// property of its situation, citing the obligation it broke.
@Suite struct ObligationSeamTests {
    static let seg0 = "/videos/clear/400k/seg0.ts"
    static let seg1 = "/videos/clear/400k/seg1.ts"
    static let seg2 = "/videos/clear/400k/seg2.ts"

    /// d1 downloads seg0; the user pauses it at 4 s (suspended(user) at 4.05 s); the app
    /// is killed at 8 s (crash, disk read at 8.2 s) and launched again at 9 s after
    /// `termination`. A right engine keeps the pause: it reports nothing after the launch.
    static func pausedThenKilled(after termination: RelaunchKind = .crash) -> TraceBuilder {
        var b = TraceBuilder()
        b.interface(.wifi, up: true, at: 0)
        b.request("d1", video: "clear", at: 0)
        b.launch(after: .clean, at: 0)
        b.state("d1", .downloading, at: 1)
        b.origin(seg0, bytes: 1000, at: 3, duration: 1.5)
        b.userAction("pause", "d1", at: 4)
        b.state("d1", .suspended(.user), at: 4.05)
        b.kill(at: 8)
        b.disk(at: 8.2, stored: [seg0])
        b.launch(after: termination, at: 9)
        b.note("end", at: 60)
        return b
    }

    static func failed(_ verdict: Verdict, broke obligation: Obligation, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(verdict.outcome == .failed, "\(verdict.property): \(verdict.evidence)", sourceLocation: sourceLocation)
        #expect(verdict.evidence.contains { $0.obligation == obligation.rawValue },
                "\(verdict.property) must cite \(obligation.rawValue): \(verdict.evidence)", sourceLocation: sourceLocation)
    }

    static func passedEverywhere(_ b: TraceBuilder, _ context: PropertyContext = PropertyContext(),
                                 sourceLocation: SourceLocation = #_sourceLocation) {
        for verdict in Properties.evaluate(b.trace, context) {
            #expect(verdict.outcome != .failed, "\(verdict.property): \(verdict.evidence)", sourceLocation: sourceLocation)
        }
    }

    // MARK: A pause and a kill

    /// The false alarm of the issue: crash-recovery took every suspended download at a
    /// kill as owed its completion, and failed an engine that keeps the pause.
    @Test func aPauseKeptAcrossACrashThatTheUserNeverResumesPasses() {
        let b = Self.pausedThenKilled()
        Self.passedEverywhere(b)
        let recovery = evaluate("crash-recovery", b)
        expectEvidence(recovery, at: 8, contains: "download d1 was paused by the user at the kill at 8.000 s: it owes its "
            + "pause after the launch after crash, not its completion")
        let pause = evaluate("pause-holds", b)
        #expect(pause.outcome == .passed, "\(pause.evidence)")
        expectEvidence(pause, at: 9, contains: "the pause of download d1 outlives the launch after crash at 9.000 s")
        #expect(ScenarioTrace(b.entries).intentSpans(of: b.trace.downloads[0]).map(\.intent) == [.wanted, .paused])
    }

    /// The blind spot: pause-holds ended its window at the kill, so an engine that
    /// forgets the pause after a relaunch (it downloads on its own) passed everything.
    @Test func anEngineThatUnpausesAfterTheRelaunchFailsPauseHolds() {
        var b = Self.pausedThenKilled()
        b.change("d1", from: .suspended(.user), to: .downloading, at: 9.1)
        b.origin(Self.seg1, bytes: 1000, at: 11, duration: 1.5)
        let verdict = evaluate("pause-holds", b)
        Self.failed(verdict, broke: .holdPause)
        expectEvidence(verdict, at: 9.1, contains: "download d1 left suspended(user) (→ downloading) at 9.100 s with no "
            + "resume since the pause at 4.000 s (across the launch after crash at 9.000 s)")
        expectEvidence(verdict, at: 9.5, contains: "origin GET /videos/clear/400k/seg1.ts started at 9.500 s (1000 bytes) "
            + "while download d1 was paused")
    }

    /// Resumed after the relaunch, the paused download owes its completion again:
    /// pause-holds sees it complete.
    @Test func aPauseKeptAcrossACrashThenResumedMustComplete() {
        var b = Self.pausedThenKilled()
        b.userAction("resume", "d1", at: 20)
        b.state("d1", .downloading, at: 20.05)
        b.origin(Self.seg1, bytes: 1000, at: 22, duration: 1.5)
        b.state("d1", .downloaded, at: 22.5)
        Self.passedEverywhere(b)
        var stuck = Self.pausedThenKilled()
        stuck.userAction("resume", "d1", at: 20)
        stuck.state("d1", .downloading, at: 20.05)
        Self.failed(evaluate("pause-holds", stuck), broke: .complete)
    }

    /// A force-quit while paused: the guides fail the downloads in flight, paused or not;
    /// the pause ends at the kill, so the failure the relaunched app reports (even before
    /// the harness has its answer to hello) breaks no pause.
    @Test func aForceQuitWhilePausedOwesTheFailureNotThePause() {
        var b = Self.pausedThenKilled(after: .userForceQuit)
        b.change("d1", from: .suspended(.user), to: .failed, at: 8.9)
        Self.passedEverywhere(b)
        #expect(evaluate("crash-recovery", b).outcome == .passed)
        #expect(evaluate("justified-failure", b).outcome == .passed)
        var kept = Self.pausedThenKilled(after: .userForceQuit)
        kept.note("nothing reported after the launch", at: 30)
        Self.failed(evaluate("crash-recovery", kept), broke: .failAtLaunch)
    }

    // MARK: A pause and a path change

    /// An engine that clears every pause when an interface comes back: the pause window
    /// never depended on the network, but no shipped scenario changed the network in a
    /// pause; the verdict must name the obligation.
    @Test func anEngineThatUnpausesWhenWiFiReturnsFailsPauseHolds() {
        var b = Self.pausedThenKilled()
        b.interface(.wifi, up: false, mode: .reset, at: 12)
        b.interface(.wifi, up: true, at: 16)
        b.change("d1", from: .suspended(.user), to: .downloading, at: 16.1)
        Self.failed(evaluate("pause-holds", b), broke: .holdPause)
    }

    /// A resume with no interface the download may use: a wifi-only download resumed
    /// while only cellular is up owes suspended(cellularNotAllowed) or
    /// suspended(network). The rule of the app's knowledge was only "no interface at all"
    /// before (auto-suspend-on-disconnect's); cellular-policy's span rule caught only a
    /// claim still standing 15 s into the span.
    @Test func aDownloadingClaimOnAResumeWithOnlyAForbiddenInterfaceUpFails() {
        func trace(claim: AppState) -> TraceBuilder {
            var b = TraceBuilder()
            b.interface(.wifi, up: true, at: 0)
            b.interface(.cellular, up: true, at: 0)
            b.launch(after: .clean, at: 0)
            b.request("d1", video: "clear", at: 0)
            b.state("d1", .downloading, at: 1)
            b.origin(Self.seg0, bytes: 1000, at: 3, duration: 1.5)
            b.userAction("pause", "d1", at: 4)
            b.state("d1", .suspended(.user), at: 4.05)
            b.interface(.wifi, up: false, mode: .reset, at: 5)
            b.path([.cellular], at: 5.01)
            b.acknowledged([.cellular], at: 5.02)
            b.userAction("resume", "d1", at: 7)
            b.state("d1", claim, at: 7.05)
            b.interface(.wifi, up: true, at: 30)
            b.path([.wifi, .cellular], at: 30.01)
            b.change("d1", from: claim, to: .downloading, at: 30.1)
            b.origin(Self.seg1, bytes: 1000, at: 32, duration: 1.5)
            b.state("d1", .downloaded, at: 32.5)
            return b
        }
        let verdict = evaluate("cellular-policy", trace(claim: .downloading))
        Self.failed(verdict, broke: .respectCellular)
        expectEvidence(verdict, at: 7.05, contains: "download d1 (cellular not allowed) suspended(user) → downloading at "
            + "7.050 s, while the app knew only cellular was up: the app acknowledged a path with only cellular up at 5.020 s")
        #expect(evaluate("auto-suspend-on-disconnect", trace(claim: .downloading)).outcome != .failed,
                "told only cellular: cellular-policy's, once")
        Self.passedEverywhere(trace(claim: .suspended(.cellularNotAllowed)))
    }

    // MARK: A failure with no outage

    /// d1 downloads seg0 over WiFi, which stays up; `answer` is what the origin does to
    /// seg1 (as many times as given); then the app reports d1 failed.
    static func failing(after answers: [(status: Int, completed: Bool, at: Double)]) -> TraceBuilder {
        var b = TraceBuilder()
        b.interface(.wifi, up: true, at: 0)
        b.launch(after: .clean, at: 0)
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.origin(seg0, bytes: 1000, at: 3, duration: 1.5)
        for answer in answers {
            b.origin(seg1, bytes: answer.status != 200 ? 0 : answer.completed ? 1000 : 400, at: answer.at, duration: 0.05, status: answer.status,
                     completed: answer.completed)
        }
        b.state("d1", .failed, at: (answers.last?.at ?? 4) + 0.5)
        return b
    }

    @Test func aFailureOnOneServerErrorFailsJustifiedFailure() {
        let b = Self.failing(after: [(503, true, 5)])
        let verdict = evaluate("justified-failure", b)
        Self.failed(verdict, broke: .failOnlyForCause)
        expectEvidence(verdict, at: 5.5, contains: "download d1 downloading → failed at 5.500 s with no permanent cause the "
            + "world showed: the origin's last answers: 200 to GET /videos/clear/400k/seg0.ts; 503 to GET "
            + "/videos/clear/400k/seg1.ts; wifi up; 1 round of server errors in a row, not 5")
        for other in ["auto-suspend-on-disconnect", "liveness", "crash-recovery", "license-before-background"] {
            #expect(evaluate(other, b).outcome != .failed, "reported once, on justified-failure: \(other)")
        }
    }

    @Test func aFailureOnACutBodyWithWiFiUpFailsJustifiedFailure() {
        let verdict = evaluate("justified-failure", Self.failing(after: [(200, false, 5)]))
        Self.failed(verdict, broke: .failOnlyForCause)
        expectEvidence(verdict, at: 5.5, contains: "200 to GET /videos/clear/400k/seg1.ts, cut after 400 bytes")
    }

    /// Five rounds of server errors, each retried after a pause (0.5, 1, 2, 4 s): the
    /// documented number justifies the failure. Five in 50 ms (no backoff) are one round.
    @Test func fiveRoundsOfServerErrorsWithBackoffJustifyAFailure() {
        let rounds = Self.failing(after: [(503, true, 5), (503, true, 5.6), (500, true, 6.7), (503, true, 8.8), (502, true, 12.9)])
        let verdict = evaluate("justified-failure", rounds)
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 13.4, contains: "5 rounds of server errors in a row, the last 502")
        let burst = Self.failing(after: [(503, true, 5), (503, true, 5.01), (503, true, 5.02), (503, true, 5.03), (503, true, 5.04)])
        Self.failed(evaluate("justified-failure", burst), broke: .failOnlyForCause)
        let interrupted = Self.failing(after: [(503, true, 5), (503, true, 5.6), (200, true, 6.0), (500, true, 6.7),
                                               (503, true, 8.8), (502, true, 12.9)])
        Self.failed(evaluate("justified-failure", interrupted), broke: .failOnlyForCause)
    }

    /// A 404 for one of its resources is permanent, after an outage too: an engine that
    /// fails then was failed by auto-suspend-on-disconnect ("an outage must never fail a
    /// download") before.
    @Test func aClientErrorJustifiesAFailureEvenAfterAnOutage() {
        var b = TraceBuilder()
        b.interface(.wifi, up: true, at: 0)
        b.interface(.cellular, up: false, mode: .refuse, at: 0)
        b.launch(after: .clean, at: 0)
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.origin(Self.seg0, bytes: 1000, at: 3, duration: 1.5)
        b.interface(.wifi, up: false, mode: .reset, at: 4)
        b.state("d1", .suspended(.network), at: 4.2)
        b.interface(.wifi, up: true, at: 8)
        b.state("d1", .downloading, at: 8.2)
        b.origin(Self.seg1, bytes: 0, at: 9, duration: 0.05, status: 404)
        b.state("d1", .failed, at: 9.1)
        Self.passedEverywhere(b)
        expectEvidence(evaluate("auto-suspend-on-disconnect", b), at: 9.1, contains: "for a permanent cause: the origin "
            + "answered 404 to GET /videos/clear/400k/seg1.ts at 9.000 s (not the outage)")
        expectEvidence(evaluate("justified-failure", b), at: 9.1, contains: "the origin answered 404")
    }

    /// The unjustified failure after an outage stays auto-suspend-on-disconnect's, and
    /// only its: justified-failure lists it.
    @Test func aFailureAtAnOutageIsReportedOnceOnAutoSuspend() {
        var b = TraceBuilder()
        b.interface(.wifi, up: true, at: 0)
        b.interface(.cellular, up: false, mode: .refuse, at: 0)
        b.launch(after: .clean, at: 0)
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.interface(.wifi, up: false, mode: .reset, at: 4)
        b.state("d1", .failed, at: 4.2)
        Self.failed(evaluate("auto-suspend-on-disconnect", b), broke: .failOnlyForCause)
        let listed = evaluate("justified-failure", b)
        #expect(listed.outcome == .passed, "\(listed.evidence)")
        expectEvidence(listed, at: 4.2, contains: "judged by auto-suspend-on-disconnect")
    }

    /// A failure after a crash with no cause: crash-recovery reported "ended failed, not
    /// downloaded"; now the failure is judged once, by justified-failure.
    @Test func aFailureAfterACrashIsJudgedOnceByJustifiedFailure() {
        var b = TraceBuilder()
        b.interface(.wifi, up: true, at: 0)
        b.launch(after: .clean, at: 0)
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.kill(at: 5)
        b.disk(at: 5.2)
        b.launch(after: .crash, at: 6)
        b.state("d1", .failed, at: 6.5)
        #expect(evaluate("crash-recovery", b).outcome == .passed)
        expectEvidence(evaluate("crash-recovery", b), at: 6.5, contains: "with no cause the world showed (judged by "
            + "justified-failure)")
        Self.failed(evaluate("justified-failure", b), broke: .failOnlyForCause)
    }

    // MARK: The license and an unprepared background

    /// The second false alarm: the app sent to the background with no prepareForBackground
    /// while its license response was 2 s late. What it owes is no license request in the
    /// background and the exchange taken up after the foreground.
    static func unpreparedBackground(askAgain: Bool) -> TraceBuilder {
        var b = TraceBuilder()
        b.interface(.wifi, up: true, at: 0)
        b.launch(after: .clean, at: 0)
        b.protectedRequest("d1", video: "drm", asset: "drm-a", at: 0)
        b.licenseIssued(asset: "drm-a", at: 1, delivery: nil)  // cut by the background: never completed
        b.lifecycle(foreground: false, at: 1.5)
        b.lifecycle(foreground: true, at: 10)
        if askAgain {
            b.licenseIssued(asset: "drm-a", at: 10.5, delivery: 0.1)
            b.licenseAcquired("d1", at: 10.7)
            b.state("d1", .downloading, at: 10.8)
            b.origin("/videos/drm/400k/seg0.ts", bytes: 1000, at: 12, duration: 1)
            b.state("d1", .downloaded, at: 12.5)
        }
        b.note("end", at: 60)
        return b
    }

    @Test func anUnpreparedBackgroundMidExchangeOwesTheExchangeAfterTheForeground() {
        let right = Self.unpreparedBackground(askAgain: true)
        let verdict = evaluate("license-before-background", right)
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 10.6, contains: "app to background (unprepared: no prepareForBackground) at 1.500 s "
            + "before download d1 held a license; after the foreground at 10.000 s its license for asset drm-a")
        let idle = evaluate("license-before-background", Self.unpreparedBackground(askAgain: false))
        Self.failed(idle, broke: .licenseAfterForeground)
        expectEvidence(idle, at: 10, contains: "it did not take up its license exchange within 34.000 s")
        var prepared = Self.unpreparedBackground(askAgain: true)
        prepared.prepared(unfinished: ["d1"], at: 1.4)
        Self.failed(evaluate("license-before-background", prepared), broke: .licenseBeforeBackground)
    }

    // MARK: Liveness and a license held in the background

    /// A protected download that holds its license goes on in the background; liveness
    /// excused every protected download in the background before.
    @Test func aProtectedDownloadHoldingItsLicenseOwesBytesInTheBackground() {
        var b = TraceBuilder()
        b.interface(.wifi, up: true, at: 0)
        b.launch(after: .clean, at: 0)
        b.protectedRequest("d1", video: "drm", asset: "drm-a", at: 0)
        b.licenseIssued(asset: "drm-a", at: 1, delivery: 0.1)
        b.state("d1", .downloading, at: 1.2)
        b.origin("/videos/drm/400k/seg0.ts", bytes: 1000, at: 3, duration: 1)
        b.lifecycle(foreground: false, at: 4)
        b.note("end", at: 60)
        Self.failed(evaluate("liveness", b), broke: .transfer)
        var waiting = TraceBuilder()
        waiting.interface(.wifi, up: true, at: 0)
        waiting.launch(after: .clean, at: 0)
        waiting.protectedRequest("d1", video: "drm", asset: "drm-a", at: 0)
        waiting.lifecycle(foreground: false, at: 0.5)
        waiting.note("end", at: 60)
        #expect(evaluate("liveness", waiting).outcome != .failed, "no license yet: excused in the background")
    }

    // MARK: A removal and a completion at once

    /// Seen with the Python engine under subway-commute (profile-timeline): the user
    /// cancelled the download as its last segment landed; the app reported it downloaded
    /// 6 ms after the cancel, then removed it, and the harness's read of the package
    /// (named by the app's `finished`) found the master already deleted. A download the
    /// user removed owes nothing left behind, not a package: integrity failed it before.
    @Test func aDownloadReportedDownloadedAfterTheUserCancelledItOwesNoPackage() {
        var b = TraceBuilder()
        b.interface(.wifi, up: true, at: 0)
        b.launch(after: .clean, at: 0)
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.origin(Self.seg0, bytes: 1000, at: 3, duration: 1.5)
        b.userAction("cancel", "d1", at: 85.1237)
        b.state("d1", .downloaded, at: 85.1294)
        b.add(85.1311, .harness(.packageRead(
            download: "d1", master: "/tmp/p/d1/master.m3u8", cause: .downloaded,
            found: PackageFindings(directory: "/tmp/p/d1", problems: ["no master playlist master.m3u8 in the package"]))))
        b.state("d1", .notDownloaded, at: 85.1376)
        let context = PropertyContext(renditions: OriginRenditions(["/videos/clear/400k/index.m3u8": [Self.seg0]]))
        let verdict = evaluate("integrity", b, context)
        #expect(verdict.outcome != .failed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 85.1294, contains: "after the user removed it (the user's cancel at 85.123 s): it owes "
            + "nothing left behind")
        // The same read with no cancel before the report is a package that is not there.
        var kept = TraceBuilder()
        kept.request("d1", video: "clear", at: 0)
        kept.state("d1", .downloading, at: 1)
        kept.origin(Self.seg0, bytes: 1000, at: 3, duration: 1.5)
        kept.state("d1", .downloaded, at: 85.1294)
        kept.add(85.1311, .harness(.packageRead(
            download: "d1", master: "/tmp/p/d1/master.m3u8", cause: .downloaded,
            found: PackageFindings(directory: "/tmp/p/d1", problems: ["no master playlist master.m3u8 in the package"]))))
        Self.failed(evaluate("integrity", kept, context), broke: .keepPackage)
    }

    // MARK: Every violation cites its obligation

    @Test func everyViolationNamesTheObligationItBroke() {
        let traces = [
            Self.failing(after: [(503, true, 5)]), Self.unpreparedBackground(askAgain: false),
            { var b = Self.pausedThenKilled(); b.change("d1", from: .suspended(.user), to: .downloading, at: 9.1); return b }(),
        ]
        var failedVerdicts = 0
        for b in traces {
            for verdict in Properties.evaluate(b.trace, PropertyContext()) where verdict.failed {
                failedVerdicts += 1
                for evidence in verdict.evidence {
                    #expect(evidence.obligation.flatMap(Obligation.init(rawValue:)) != nil,
                            "\(verdict.property): \(evidence.text)")
                }
            }
        }
        #expect(failedVerdicts >= 3)
    }
}
