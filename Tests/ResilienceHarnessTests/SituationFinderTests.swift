import AppProtocol
import BenchCore
import BenchResults
import Foundation
import LinkConditioner
@testable import ResilienceHarness
import Testing

/// The situations found in a trace (docs/situations.md): each incident from its
/// evidence, and the context that held just before it.
@Suite struct SituationFinderTests {
    /// The pairs of `builder`'s trace, as ids.
    func pairs(_ builder: TraceBuilder, renditions: OriginRenditions = OriginRenditions()) -> Set<String> {
        Set(SituationModel.coverage(of: SituationFinder.situations(in: builder.trace, renditions: renditions)).pairs
            .map(\.pair.id))
    }

    /// A download of `clear` mid-segment from 1 s (its segment requests started at 1 s and 3 s).
    func downloading(allowsCellular: Bool = false) -> TraceBuilder {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0.5, allowsCellular: allowsCellular)
        b.origin("/videos/clear/master.m3u8", bytes: 300, at: 0.7, duration: 0.1)
        b.origin("/videos/clear/400k/seg0.ts", bytes: 1000, at: 2, duration: 1)
        b.origin("/videos/clear/400k/seg1.ts", bytes: 1000, at: 4, duration: 1)
        return b
    }

    @Test func aResetWhosePathUpdateCameLateMidSegmentIsTwoIncidentsInThatPhase() {
        var b = downloading()
        b.conditionerDown(.wifi, mode: .reset, at: 3.5)
        b.add(3.5, .conditioner(.pathChanged(path: NetworkPath(interfaces: []))))
        b.add(5.5, .conditioner(.pathPublished(path: NetworkPath(interfaces: []))))
        let found = pairs(b)
        #expect(found.contains("network.down-reset × phase:mid-segment"))
        #expect(found.contains("network.path-update-late × phase:mid-segment"))
        #expect(!found.contains { $0.hasPrefix("network.path-update-withheld") })
    }

    @Test func aPathUpdateNeverPublishedBeforeTheNextChangeWasWithheld() {
        var b = downloading()
        b.add(3.5, .conditioner(.pathChanged(path: NetworkPath(interfaces: []))))
        b.add(4.5, .conditioner(.pathChanged(path: NetworkPath(interfaces: [
            PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: "127.0.0.2:1"),
        ]))))
        b.add(4.5, .conditioner(.pathPublished(path: NetworkPath(interfaces: [
            PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: "127.0.0.2:1"),
        ]))))
        let found = pairs(b)
        #expect(found.contains("network.path-update-withheld × phase:mid-segment"))
        #expect(!found.contains { $0.hasPrefix("network.path-update-late") }, "published at once: on time")
    }

    @Test func aRelaunchWhileOnlyCellularIsUpMeetsTheDownloadThatMayNotUseIt() {
        var b = downloading(allowsCellular: false)
        b.launch(after: .clean, at: 0.1)
        b.conditionerDown(.wifi, mode: .refuse, at: 3.2)
        b.kill(at: 3.5)
        b.launch(after: .crash, at: 3.6)
        let found = pairs(b)
        #expect(found.contains("lifecycle.relaunch × network:cellular-only"))
        #expect(found.contains("lifecycle.relaunch × download:may-not-use-cellular"))
        #expect(found.contains("lifecycle.relaunch × phase:suspended-network"), "its only interface was down")
        #expect(found.contains("lifecycle.kill-crash × network:cellular-only"))
    }

    @Test func cellularComingBackAloneAndThenWifiMeetTheSuspendedDownload() {
        var b = downloading(allowsCellular: true)
        b.conditionerDown(.wifi, mode: .reset, at: 3.2)
        b.conditionerDown(.cellular, mode: .reset, at: 3.3)
        b.conditionerUp(.cellular, at: 4)
        b.conditionerUp(.wifi, at: 6)
        let found = pairs(b)
        #expect(found.contains("network.cellular-back-alone × phase:suspended-network"))
        #expect(found.contains("network.cellular-back-alone × network:offline"))
        #expect(found.contains("network.wifi-back × network:cellular-only"))
        #expect(!found.contains("network.wifi-back × phase:suspended-network"), "cellular carried it by then")
    }

    @Test func connectionsCutWhileTheInterfaceStaysUpAreBodyIncidentsByHowTheyEnded() {
        var b = downloading()
        b.connectionReset(.wifi, connection: 3, at: 1.5, reason: ConnectionCut.reason(.reset))
        b.add(1.6, .conditioner(.connectionClosed(
            connection: ConnectionID(4), interface: .wifi, reason: ConnectionCut.reason(.close), stats: ConnectionStats())))
        b.connectionReset(.wifi, connection: 5, at: 3.5, reason: "reset after 65536 bytes")
        b.connectionReset(.wifi, connection: 6, at: 3.6, reason: "interface wifi down (reset)")
        let found = pairs(b)
        #expect(found.contains("network.body-cut × phase:mid-segment"))
        #expect(found.contains("network.body-closed × phase:mid-segment"))
        let cuts = SituationFinder.situations(in: b.trace).filter { $0.incident == .bodyCut }
        #expect(cuts.map(\.t) == [1_500_000_000, 3_500_000_000], "an interface going down is not a cut body")
    }

    @Test func originFaultsAreFoundInTheOriginsLogAndNamedByTheirRule() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0.5)
        b.note("origin fault origin-fault-1\(ScenarioContext.faultBegins)captive portal on every path", at: 0.6)
        b.add(0.6, .harness(.originFaultBegan(index: 0, label: nil, path: "/**", fault: "status 503", rule: "profile-origin-0")))
        b.add(1.0, .origin(Self.record("/videos/clear/master.m3u8", status: 503, rule: "profile-origin-0", duration: 0.1)))
        b.add(1.2, .origin(Self.record("/videos/clear/master.m3u8", status: 200, rule: nil, duration: 0.1)))
        b.add(2.0, .origin(Self.record("/videos/clear/400k/seg0.ts", status: 200, rule: nil, duration: 0.5)))
        b.add(3.0, .origin(Self.record("/videos/clear/400k/seg1.ts", status: 200, rule: "origin-fault-1", duration: 0.5)))
        b.add(4.0, .origin(Self.record("/videos/clear/400k/seg2.ts", status: 200, rule: "origin-fault-9", duration: 0.5,
                                       completed: false, bytes: 512)))
        let found = pairs(b)
        #expect(found.contains("origin.status-fault × phase:requested"), "the first playlist request: nothing fetched before")
        #expect(found.contains("origin.captive-portal × phase:mid-segment"))
        #expect(found.contains("network.body-closed × phase:mid-segment"), "a body a fault rule ended early")
    }

    @Test func aSlowLicenseIsFoundAtItsFirstByteWhileTheLicenseIsOnItsWay() {
        var b = TraceBuilder()
        b.protectedRequest("d1", video: "drm", asset: "drm-a", at: 0)
        b.origin("/videos/drm/master.m3u8", bytes: 300, at: 0.2, duration: 0.1)
        var record = Self.record("/license", status: 200, rule: "slow-license", duration: 3.1)
        record.method = "POST"
        record.timeToFirstByteNanoseconds = 3_000_000_000
        b.add(3.5, .origin(record))
        let slow = SituationFinder.situations(in: b.trace).filter { $0.incident == .slowLicense }
        #expect(slow.map(\.t) == [3_400_000_000], "at the first byte: 0.4 s start + 3 s")
        #expect(slow.first?.context.contains(.license) == true)
    }

    @Test func aUsersActionCountsThePhaseOfItsOwnDownloadOnly() {
        var b = downloading()
        b.request("d2", video: "other", at: 0.6)
        b.userAction("pause", "d2", at: 1.5)
        b.userAction("resume", "d2", at: 2.5)
        b.userAction("cancel", "d1", at: 3.5)
        let found = pairs(b)
        #expect(found.contains("user.resume × phase:paused"))
        #expect(found.contains("user.pause × phase:requested"), "d2 had fetched nothing")
        #expect(!found.contains("user.pause × phase:mid-segment"), "d1's phase is not d2's")
        #expect(found.contains("user.cancel × phase:mid-segment"))
    }

    @Test func aDownloadTheHarnessReadWholeOrTheUserDeletedIsSettled() {
        var b = downloading()
        b.packageRead("d1", PackageFindings(directory: "/p"), at: 5)
        b.lifecycle(foreground: false, at: 6)
        b.userAction("delete", "d1", at: 7)
        let found = pairs(b)
        #expect(found.contains("lifecycle.background × phase:settled"))
        #expect(found.contains("user.delete × phase:settled"))
    }

    @Test func theLastFifthOfARenditionIsItsLastSegments() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        for index in 0..<9 { b.origin("/videos/clear/400k/seg\(index).ts", bytes: 100, at: Double(index) + 1, duration: 0.5) }
        b.kill(at: 8.7)
        b.launch(after: .crash, at: 8.8)
        let renditions = OriginRenditions([
            "/videos/clear/400k/index.m3u8": (0..<10).map { "/videos/clear/400k/seg\($0).ts" },
        ])
        #expect(pairs(b, renditions: renditions).contains("lifecycle.kill-crash × phase:last-segments"), "seg8 of 10")
        #expect(pairs(b).contains("lifecycle.kill-crash × phase:mid-segment"), "without the layout: mid-segment")
    }

    static func record(
        _ path: String, status: Int, rule: String?, duration: Double, completed: Bool = true, bytes: Int = 1000
    ) -> OriginRequestRecord {
        OriginRequestRecord(
            connectionID: 1, interface: "wifi", proxySource: nil, method: "GET", path: path, range: nil, status: status,
            bytesSent: bytes, startedAtNanoseconds: 0, timeToFirstByteNanoseconds: nil,
            durationNanoseconds: UInt64(duration * 1e9), faultRuleID: rule, completed: completed)
    }
}

/// The model's table, the coverage of a run and the gate's use of it.
@Suite struct SituationModelTests {
    @Test func everyMeaningfulPairIsUniqueAndNamesProperties() {
        let pairs = SituationModel.meaningful.map(\.pair.id)
        #expect(Set(pairs).count == pairs.count, "a pair listed twice")
        let properties = Set(Properties.all.map(\.id))
        for entry in SituationModel.meaningful {
            #expect(!entry.properties.isEmpty && !entry.why.isEmpty, "\(entry.pair.id)")
            #expect(entry.properties.allSatisfy(properties.contains), "\(entry.pair.id): \(entry.properties)")
        }
    }

    @Test func docsSituationsListsEveryMeaningfulPair() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("docs/situations.md"), encoding: .utf8)
        for entry in SituationModel.meaningful {
            #expect(text.contains("`\(entry.pair.id)`"), "docs/situations.md does not list \(entry.pair.id)")
        }
    }

    @Test func aRunsCoverageNamesTheScenariosOfEachPairAndCountsTheRest() throws {
        let first = try #require(SituationModel.meaningful.first)
        let covered = CoveredPair(pair: first.pair, t: 5, evidence: "e")
        let other = CoveredPair(pair: SituationPair(incident: "user.request", context: "phase:settled"), t: 1, evidence: "e")
        let run = SituationModel.runCoverage([
            ("a", ScenarioCoverage(pairs: [covered, other])), ("b", ScenarioCoverage(pairs: [covered])),
        ])
        #expect(run.meaningful.first?.scenarios == ["a", "b"])
        #expect(run.covered == 1 && run.uncovered.count == SituationModel.meaningful.count - 1)
        #expect(run.otherPairs == [other.pair])
        #expect(run.summary.hasPrefix("1 of \(SituationModel.meaningful.count) meaningful situation pairs"))
        let doubled = ScenarioCoverage(pairs: [covered, CoveredPair(pair: first.pair, t: 2, evidence: "earlier")])
        #expect(doubled.pairs.map(\.t) == [2], "each pair once, at its first moment")
    }

    @Test func calibrationKeepsThePairsEveryRunCreatedAndAPartialUpdateKeepsTheSuites() throws {
        let first = try #require(SituationModel.meaningful.first), second = SituationModel.meaningful[1]
        func report(_ entries: [SituationModel.Entry]) -> RunReport {
            var report = GateComparisonTests.report(metrics: ScenarioMetrics(timeToCompleteSeconds: 60))
            report.coverage = SituationModel.runCoverage([("outage", ScenarioCoverage(pairs: entries.map {
                CoveredPair(pair: $0.pair, t: 1, evidence: "e")
            }))])
            return report
        }
        let calibrated = try Baseline.calibrated(from: [report([first, second]), report([first]), report([second, first])])
        #expect(calibrated.coverage == [first.pair.id], "the second pair was missed by one run: not gated")
        var partial = report([second])
        partial.scenarios[0].name = "another"
        #expect(calibrated.updated(from: partial).coverage == [first.pair.id],
                "a run without the baseline's scenarios says nothing of their pairs")
    }

    @Test func theGateFailsOnAPairTheBaselinesRunsCreatedAndThisOneDidNot() throws {
        let first = try #require(SituationModel.meaningful.first), second = SituationModel.meaningful[1]
        var report = GateComparisonTests.report(metrics: ScenarioMetrics(timeToCompleteSeconds: 60))
        report.coverage = SituationModel.runCoverage([("outage", ScenarioCoverage(pairs: [
            CoveredPair(pair: first.pair, t: 1, evidence: "e"),
        ]))])
        var baseline = Baseline(scenarios: [:]).updated(from: report)
        #expect(baseline.coverage == [first.pair.id])
        #expect(GateComparison(report: report, baseline: baseline).coverageLost.isEmpty)
        baseline.coverage = [first.pair.id, second.pair.id]
        let gate = GateComparison(report: report, baseline: baseline)
        #expect(!gate.passed && gate.coverageLost == [second.pair.id])
        #expect(gate.lines(baselinePath: "b").contains { $0.contains("coverage lost") && $0.contains(second.pair.id) })
        #expect(GateComparison(report: report, baseline: baseline, onlyScenariosRun: true).coverageLost.isEmpty,
                "a run of chosen scenarios is not judged on the suite's coverage")
    }
}
