import BenchCore
import AppProtocol
import ResilienceHarness
import Testing

/// `auto-suspend-on-disconnect`: each test tells a scenario around one WiFi outage.
@Suite struct PropertyAutoSuspendTests {
    let id = "auto-suspend-on-disconnect"

    /// d1 (WiFi only) downloads from 1 s; WiFi goes down (reset) at 10 s and returns at 20 s.
    func outage(suspendAt: Double? = 10.8, resumeAt: Double? = 21, doneAt: Double? = 30) -> TraceBuilder {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.interface(.wifi, up: false, mode: .reset, at: 10)
        if let suspendAt { b.state("d1", .suspended(.network), at: suspendAt) }
        b.interface(.wifi, up: true, at: 20)
        if let resumeAt { b.state("d1", .downloading, at: resumeAt) }
        if let doneAt { b.state("d1", .downloaded, at: doneAt) }
        return b
    }

    @Test func suspendsResumesAndCompletes() {
        let verdict = evaluate(id, outage())
        #expect(verdict.outcome == .passed)
        expectEvidence(verdict, at: 10.8, contains: "download d1 downloading → suspended(network) 0.800 s after wifi down (reset)")
        expectEvidence(verdict, at: 21, contains: "download d1 suspended(network) → downloading 1.000 s after wifi up")
        #expect(verdict.summary.contains("worst suspend 0.800 s"))
    }

    /// d1 is suspended for the network when the app is told, at 10 s, that nothing is up;
    /// it claims a transfer at `downloadingAt` (before WiFi is given back at 20 s, it
    /// suspends again at once), and completes by 30 s.
    func toldOffline(downloadingAt: Double, killAt: Double? = nil) -> TraceBuilder {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.interface(.wifi, up: false, mode: .reset, at: 10)
        b.path([], at: 10)
        b.state("d1", .suspended(.network), at: 10.002)
        b.acknowledged([], at: 10.005)
        if let killAt { b.kill(at: killAt) }
        if downloadingAt < 20 {
            b.state("d1", .downloading, at: downloadingAt)
            b.state("d1", .suspended(.network), at: downloadingAt + 0.1)
        }
        b.interface(.wifi, up: true, at: 20)
        b.path([.wifi], at: 20)
        if downloadingAt >= 20 { b.state("d1", .downloading, at: downloadingAt) }
        b.acknowledged([.wifi], at: 20.01)
        if downloadingAt < 20 { b.state("d1", .downloading, at: 21) }
        b.state("d1", .downloaded, at: 30)
        return b
    }

    @Test func aTransferClaimedWhileToldNothingIsUpFails() {
        let verdict = evaluate(id, toldOffline(downloadingAt: 14))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 14, contains: "download d1 suspended(network) → downloading at 14.000 s, while the app knew "
            + "no interface was up: the app acknowledged a path with no interface up at 10.005 s, and nothing since gave it one "
            + "until 20.000 s")
    }

    @Test func aClaimWrittenBeforeThePathWasReadOrAfterAnInterfaceWasSentIsNotCounted() {
        // Recorded between the harness's send of the empty path and the app's reply: the
        // app wrote it before it read that path.
        var before = TraceBuilder()
        before.request("d1", video: "clear", at: 0)
        before.state("d1", .suspended(.network), at: 1)
        before.path([], at: 10)
        before.state("d1", .downloading, at: 10.3)
        before.acknowledged([], at: 10.4)
        before.state("d1", .suspended(.network), at: 10.5)
        before.path([.wifi], at: 20)
        before.state("d1", .downloading, at: 20.001)
        before.acknowledged([.wifi], at: 20.002)
        before.state("d1", .downloaded, at: 30)
        #expect(!Self.claims(evaluate(id, before)), "\(evaluate(id, before).evidence)")
        // Recorded after the harness sent a path with WiFi (before the app's reply to it).
        #expect(!Self.claims(evaluate(id, toldOffline(downloadingAt: 20.005))))
        #expect(evaluate(id, toldOffline(downloadingAt: 20.005)).outcome == .passed)
    }

    static func claims(_ verdict: Verdict) -> Bool {
        verdict.evidence.contains { $0.text.contains("while the app knew no interface was up") }
    }

    @Test func aKillEndsWhatTheAppKnew() {
        // A relaunched app knows nothing of the path until it is given one.
        #expect(!Self.claims(evaluate(id, toldOffline(downloadingAt: 15, killAt: 12))))
        #expect(Self.claims(evaluate(id, toldOffline(downloadingAt: 15, killAt: 16))), "killed after the claim")
    }

    @Test func aLateSuspensionFails() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.interface(.wifi, up: false, mode: .blackhole, at: 10)
        b.state("d1", .suspended(.network), at: 27)
        b.interface(.wifi, up: true, at: 40)
        b.state("d1", .downloading, at: 41)
        b.state("d1", .downloaded, at: 50)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 27, contains: "17.000 s after wifi down (blackhole) at 10.000 s, beyond the 15.000 s bound")
        #expect(verdict.evidence.count == 1)
    }

    @Test func neverSuspendingInALongOutageFails() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.interface(.wifi, up: false, mode: .refuse, at: 10)
        b.note("still down", at: 40)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 10, contains: "did not reach suspended(network) within 15.000 s (state then: downloading)")
    }

    @Test func failingDuringTheOutageFails() {
        var b = outage(resumeAt: nil, doneAt: nil)
        b.state("d1", .failed, at: 15)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 15, contains: "download d1 suspended(network) → failed")
    }

    /// The Python engine's crash-recovery under flaky-wifi: the app was force-quit at 8 s
    /// and launched again at 9.9 s, WiFi dropped at 10 s, and the app reported the
    /// interrupted download failed at 10.6 s, as a force-quit requires. The launch failed
    /// it, not the outage; failing later, after another change, is the outage's.
    @Test func aFailureTheLaunchAfterAForceQuitMadeIsNotTheOutages() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.kill(at: 8)
        b.launch(after: .userForceQuit, at: 9.9)
        b.interface(.wifi, up: false, mode: .reset, at: 10)
        b.state("d1", .failed, at: 10.6)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome != .failed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 10.6, contains: "download d1 → failed after the launch after userForceQuit at 9.900 s")

        var later = TraceBuilder()
        later.request("d1", video: "clear", at: 0)
        later.state("d1", .downloading, at: 1)
        later.kill(at: 8)
        later.launch(after: .userForceQuit, at: 9.9)
        later.state("d1", .downloading, at: 9.95)
        later.interface(.wifi, up: false, mode: .reset, at: 10)
        later.state("d1", .failed, at: 10.6)
        #expect(evaluate(id, later).outcome == .failed, "a failure after another change is not the launch's")
    }

    /// Chaos seed 183 under flaky-wifi, Deadzone's engine: WiFi went, the app was
    /// force-quit during the outage and launched again, and reported the interrupted
    /// download failed, as a force-quit requires. When WiFi came back the download was
    /// failed: not a resumption the network owed. Failed by anything else, it fails.
    @Test func aDownloadTheLaunchAfterAForceQuitFailedNeedNotResume() {
        func trace(failedByLaunch: Bool) -> TraceBuilder {
            var b = TraceBuilder()
            b.request("d1", video: "clear", at: 0)
            b.state("d1", .downloading, at: 1)
            b.interface(.wifi, up: false, mode: .reset, at: 5)
            b.kill(at: 8)
            b.launch(after: failedByLaunch ? .userForceQuit : .crash, at: 9.9)
            b.state("d1", .failed, at: 10.1)
            b.interface(.wifi, up: true, mode: nil, at: 14)
            b.note("later", at: 40)
            return b
        }
        let verdict = evaluate(id, trace(failedByLaunch: true))
        #expect(verdict.outcome == .passed, "\(verdict.summary) \(verdict.evidence)")
        expectEvidence(verdict, at: 14, contains: "it had failed at 10.100 s, right after the launch after userForceQuit at 9.900 s")
        let crash = evaluate(id, trace(failedByLaunch: false))
        #expect(crash.outcome == .failed, "a crash must not fail it: \(crash.evidence)")
        expectEvidence(crash, at: 14, contains: "download d1 was not downloading within 15.000 s")
    }

    @Test func aLateResumptionFails() {
        let verdict = evaluate(id, outage(resumeAt: 40, doneAt: 50))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 20, contains: "download d1 was not downloading within 15.000 s (it did 20.000 s later)")
    }

    /// Subway-commute's station A, seen with the Python engine: WiFi is back at 20 s, but
    /// the profile's captive portal answers every path from 20.001 s to 45 s. The app asks
    /// for its segment every 4 s, gets the portal's page each time, stays suspended and
    /// resumes at 47 s, 2 s after the portal went: no engine could have resumed sooner.
    /// Asking nothing in the window, or resuming long after it closed, is no excuse.
    func portal(asks: Bool = true, resumeAt: Double = 47) -> TraceBuilder {
        var b = outage(resumeAt: resumeAt, doneAt: resumeAt + 5)
        b.add(20.001, .harness(.originFaultBegan(
            index: 0, label: "station A", path: "/**", fault: "captive portal", rule: "profile-origin-0")))
        for t in stride(from: 21.0, through: 41.0, by: 4.0) where asks {
            let record = OriginRequestRecord(
                connectionID: 1, interface: "wifi", proxySource: nil, method: "GET", path: "/videos/clear/400k/seg3.ts",
                range: nil, status: 200, bytesSent: 280, startedAtNanoseconds: 0, timeToFirstByteNanoseconds: nil,
                durationNanoseconds: ns(0.1), faultRuleID: "profile-origin-0", completed: true)
            b.add(t + 0.1, .origin(record))
        }
        b.add(45, .harness(.originFaultEnded(index: 0, label: "station A", rule: "profile-origin-0")))
        return b
    }

    @Test func aResumeHeldBackByTheOriginsCaptivePortalIsExcused() {
        let verdict = evaluate(id, portal())
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 20, contains: "the origin answered every request for clear with its fault (captive "
            + "portal on /** (station A)) from 20.001 s to 45.000 s: nothing could be fetched; it resumed 2.000 s after "
            + "the window closed")
        #expect(evaluate(id, portal(asks: false)).outcome == .failed, "nothing shows the portal kept the video")
        #expect(evaluate(id, portal(resumeAt: 61)).outcome == .failed, "16 s after the window closed")
    }

    @Test func notCompletingAfterTheOutageFails() {
        var b = outage(doneAt: nil)
        b.state("d1", .suspended(.network), at: 25)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 25, contains: "download d1 ended suspended(network), not downloaded")
    }

    @Test func aShortBlipNeedsNoSuspension() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.interface(.wifi, up: false, mode: .blackhole, at: 10)
        b.interface(.wifi, up: true, at: 12)
        b.state("d1", .downloaded, at: 30)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed)
        expectEvidence(verdict, at: 10, contains: "the outage lasted 2.000 s, shorter than the 15.000 s bound")
        expectEvidence(verdict, at: 12, contains: "was still downloading when wifi up")
    }

    @Test func cellularKeepsAnAllowedDownloadOutOfTheOutage() {
        // Only WiFi goes down; d1 may use cellular, so it has no outage at all.
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0, allowsCellular: true)
        b.state("d1", .downloading, at: 1)
        b.interface(.wifi, up: false, at: 10)
        b.state("d1", .downloaded, at: 30)
        #expect(evaluate(id, b).outcome == .notApplicable)
    }

    @Test func cellularNotAllowedCountsAsTheNetworkSuspension() {
        // Cellular stays up; d1 may not use it, so the engine says cellularNotAllowed.
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.interface(.wifi, up: false, at: 10)
        b.state("d1", .suspended(.cellularNotAllowed), at: 10.5)
        b.interface(.wifi, up: true, at: 20)
        b.state("d1", .downloading, at: 20.5)
        b.state("d1", .downloaded, at: 30)
        #expect(evaluate(id, b).outcome == .passed)
    }

    @Test func noOutageWhileDownloadingIsNotApplicable() {
        var b = TraceBuilder()
        b.interface(.wifi, up: false, at: 1)
        b.interface(.wifi, up: true, at: 2)
        b.request("d1", video: "clear", at: 3)
        b.state("d1", .downloading, at: 4)
        b.state("d1", .downloaded, at: 9)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .notApplicable)
        #expect(verdict.summary.contains("No download was transferring"))
    }
}
