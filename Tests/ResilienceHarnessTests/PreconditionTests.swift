import AppProtocol
import BenchCore
import FixtureOrigin
import Foundation
import ResilienceHarness
import Testing

/// Each scenario's preconditions, met and not met, judged from the evidence only.
@Suite struct PreconditionTests {
    func evaluate(_ precondition: Precondition, _ b: TraceBuilder, _ context: PropertyContext = PropertyContext())
        -> PreconditionResult
    {
        precondition.evaluate(b.trace, context)
    }

    /// WiFi goes down (`mode`) at 10 s; a segment of `clear` is delivered from `start` to `end`.
    func outage(_ mode: DownMode, deliveredFrom start: Double, to end: Double) -> TraceBuilder {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.delivery("/videos/clear/400k/seg3.ts", connection: 1, from: start, to: end)
        b.add(10, .conditioner(.interfaceDown(interface: .wifi, mode: mode)))
        return b
    }

    @Test func anOutageCountsOnlyWhenItHitATransfer() {
        let met = evaluate(ScenarioPreconditions.outageHitATransfer(.reset), outage(.reset, deliveredFrom: 8, to: 10))
        #expect(met.met, "\(met.detail)")
        #expect(met.detail.contains("WiFi down (reset) at 10.000 s while connection #1 was delivering /videos/clear/400k/seg3.ts"),
                "\(met.detail)")
        let idle = evaluate(ScenarioPreconditions.outageHitATransfer(.reset), outage(.reset, deliveredFrom: 7, to: 9))
        #expect(!idle.met && idle.detail.contains("with nothing being delivered to the app through it"), "\(idle.detail)")
        let otherMode = evaluate(ScenarioPreconditions.outageHitATransfer(.blackhole), outage(.reset, deliveredFrom: 9, to: 11))
        #expect(!otherMode.met && otherMode.detail == "WiFi never went down in blackhole mode")
        // The origin's log alone does not count: it answered in a millisecond, long before.
        var logged = TraceBuilder()
        logged.origin("/videos/clear/400k/seg3.ts", bytes: 5000, at: 10.5, duration: 2)
        logged.add(10, .conditioner(.interfaceDown(interface: .wifi, mode: .refuse)))
        #expect(!evaluate(ScenarioPreconditions.outageHitATransfer(.refuse), logged).met)
    }

    @Test func cellularOnlyMustFindBothKindsOfDownloadIncomplete() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.request("d2", video: "drm", at: 1, allowsCellular: true)
        b.interface(.wifi, up: false, at: 10)
        #expect(evaluate(ScenarioPreconditions.cellularOnlyDuringDownloads, b).met)
        var finished = TraceBuilder()
        finished.request("d1", video: "clear", at: 0)
        finished.request("d2", video: "drm", at: 1, allowsCellular: true)
        finished.state("d1", .downloaded, at: 5)
        finished.interface(.wifi, up: false, at: 10)
        let result = evaluate(ScenarioPreconditions.cellularOnlyDuringDownloads, finished)
        #expect(!result.met && result.detail.contains("never while both"), "\(result.detail)")
    }

    @Test func killsCountOnlyWithBytesInFlight() {
        var b = TraceBuilder()
        b.launch(after: .clean, at: 0)
        b.request("d1", video: "clear", at: 0.5)
        // seg1 (9000 bytes) on its way when the kill closes the app's connection at 2 s
        // with 4000 of them delivered.
        b.connectionAccepted(1, peer: "127.0.0.1:41001", at: 1)
        b.origin("/videos/clear/400k/seg1.ts", bytes: 9000, at: 1.002, duration: 0.001, source: "127.0.0.1:41001")
        b.delivered(1, total: 4000, at: 1.75)
        b.connectionClosed(1, delivered: 4000, at: 2)
        b.kill(at: 2)
        b.launch(after: .crash, at: 2.5)
        b.kill(at: 8)  // nothing in flight
        b.launch(after: .crash, at: 8.5)
        let one = evaluate(ScenarioPreconditions.killsWithBytesInFlight(1), b)
        #expect(one.met && one.detail.hasPrefix("1 kill of 2 came while bytes of a media response were on their way to the app"), "\(one.detail)")
        let two = evaluate(ScenarioPreconditions.killsWithBytesInFlight(2), b)
        #expect(!two.met && two.detail.hasSuffix("(2 needed)"), "\(two.detail)")
        // A kill followed by a force-quit relaunch is no crash recovery.
        var forced = TraceBuilder()
        forced.launch(after: .clean, at: 0)
        forced.request("d1", video: "clear", at: 0.5)
        forced.connectionAccepted(1, peer: "127.0.0.1:41001", at: 1)
        forced.origin("/videos/clear/400k/seg1.ts", bytes: 9000, at: 1.002, duration: 0.001, source: "127.0.0.1:41001")
        forced.connectionClosed(1, delivered: 4000, at: 2)
        forced.kill(at: 2)
        forced.launch(after: .userForceQuit, at: 2.5)
        #expect(!evaluate(ScenarioPreconditions.killsWithBytesInFlight(1), forced).met)
        #expect(evaluate(ScenarioPreconditions.relaunchInterrupting(.userForceQuit), forced).met)
        #expect(!evaluate(ScenarioPreconditions.relaunchInterrupting(.rebootWhileSuspended), forced).met)
    }

    @Test func aLicenseMustReachTheAppBeforeTheBackground() {
        /// Issued at `issuedAt`, its response ending `delivery` seconds later; background at 5 s.
        func run(issuedAt: Double, delivery: Double) -> TraceBuilder {
            var b = TraceBuilder()
            b.protectedRequest("p1", video: "protected", asset: "a", at: 0)
            b.licenseIssued(asset: "a", at: issuedAt, delivery: delivery)
            b.lifecycle(foreground: false, at: 5)
            return b
        }
        #expect(evaluate(ScenarioPreconditions.licenseExchangeBeforeBackground, run(issuedAt: 3, delivery: 0.1)).met)
        // Issued before the background, but its response (a slow server) ended after it.
        let slow = evaluate(ScenarioPreconditions.licenseExchangeBeforeBackground, run(issuedAt: 3, delivery: 2.5))
        #expect(!slow.met && slow.detail.hasPrefix("no license reached the app before the background"), "\(slow.detail)")
    }

    @Test func housekeepingNeedsAPauseMidTransferACancelAnOfflineInspectionAndAnExpiredRental() {
        var b = TraceBuilder()
        b.interface(.wifi, up: true, at: 0)
        b.request("d1", video: "clear", at: 0)
        b.request("d2", video: "http-key", at: 0)
        b.delivery("/videos/http-key/400k/seg2.ts", connection: 2, from: 1, to: 3)
        b.delivery("/videos/clear/400k/seg2.ts", connection: 1, from: 1, to: 2)
        b.userAction("pause", "d1", at: 2)
        b.userAction("cancel", "d2", at: 4)
        b.state("d1", .downloaded, at: 10)
        b.interface(.wifi, up: false, at: 11)
        b.interface(.cellular, up: false, at: 11)
        b.inspect(inspection("d1"), at: 12)
        for precondition in [
            ScenarioPreconditions.pauseDuringATransfer, ScenarioPreconditions.cancelOfAnIncompleteDownload,
            ScenarioPreconditions.offlineInspection,
        ] {
            let result = evaluate(precondition, b)
            #expect(result.met, "\(precondition.name): \(result.detail)")
        }
        var idle = TraceBuilder()
        idle.request("d1", video: "clear", at: 0)
        idle.request("d2", video: "http-key", at: 0)
        idle.delivery("/videos/clear/400k/seg2.ts", connection: 1, from: 0.5, to: 1)
        idle.delivery("/videos/http-key/400k/seg2.ts", connection: 2, from: 1, to: 3)  // another video's bytes
        idle.userAction("pause", "d1", at: 2)
        idle.state("d1", .downloaded, at: 3)
        idle.userAction("cancel", "d1", at: 4)
        idle.inspect(inspection("d1"), at: 5)  // WiFi up (no interface event): not offline
        for precondition in [
            ScenarioPreconditions.pauseDuringATransfer, ScenarioPreconditions.cancelOfAnIncompleteDownload,
            ScenarioPreconditions.offlineInspection,
        ] {
            #expect(!evaluate(precondition, idle).met, "\(precondition.name)")
        }
        // The rental: issued at 1 s expiring 12 s after the epoch; inspected at 13 s.
        let epoch = Date(timeIntervalSince1970: 1_800_000_000)
        var rental = TraceBuilder()
        rental.request("p1", video: "protected", at: 0, protected: true)
        rental.add(1, .license(LicenseEvent(atNanoseconds: ns(1), kind: .licenseIssued(
            assetID: "a", keyID: "k", nonce: "n", terms: .rental, expiresAt: 1_800_000_012, signature: "s"))))
        rental.inspect(inspection("p1", playable: false, unplayableReason: "license expired"), at: 13)
        let context = PropertyContext(epochWallClock: epoch)
        #expect(evaluate(ScenarioPreconditions.inspectionAfterARentalExpired, rental, context).met)
        var early = TraceBuilder()
        early.request("p1", video: "protected", at: 0, protected: true)
        early.add(1, .license(LicenseEvent(atNanoseconds: ns(1), kind: .licenseIssued(
            assetID: "a", keyID: "k", nonce: "n", terms: .rental, expiresAt: 1_800_000_012, signature: "s"))))
        early.inspect(inspection("p1"), at: 11)
        #expect(!evaluate(ScenarioPreconditions.inspectionAfterARentalExpired, early, context).met)
    }

    @Test func anUnmetPreconditionFailsTheScenarioTheGateAndJUnit() {
        let unmet = PreconditionResult(name: "a reset outage of WiFi hit a transfer in flight", met: false,
                                       detail: "WiFi never went down in reset mode")
        let result = ScenarioResult(
            name: "auto-suspend-on-disconnect", summary: "s", verdicts: [], metrics: ScenarioMetrics(), startNanoseconds: 0,
            endNanoseconds: 1, preconditions: [unmet])
        #expect(!result.passed)
        let report = RunReport(
            run: RunMetadata(profile: "p", profilePath: "p", seed: 1, startedAt: Date(), durationSeconds: 1, versions: [:],
                             machine: [:]),
            scenarios: [result])
        let gate = GateComparison(report: report, baseline: Baseline())
        #expect(!gate.passed)
        #expect(gate.scenarioErrors.first?.message.contains("precondition not met: a reset outage") == true)
        var met = result
        met.preconditions = [PreconditionResult(name: unmet.name, met: true, detail: "hit")]
        #expect(met.passed)
    }
}
