import BenchCore
import Foundation
import AppProtocol
import ResilienceHarness
import Testing

@Suite struct PropertySuiteTests {
    @Test func everyPropertyHasAUniqueKebabCaseIDAndADescription() {
        let ids = Properties.all.map(\.id)
        #expect(ids.count == 14)
        #expect(Set(ids).count == ids.count)
        for property in Properties.all {
            #expect(property.id.allSatisfy { $0.isLowercase || $0 == "-" }, "\(property.id)")
            #expect(property.description.hasSuffix("."), "\(property.id)")
            #expect(Properties.named(property.id)?.id == property.id)
        }
        #expect(Properties.named("no-such-property") == nil)
    }

    @Test func everyVerdictIsNamedAfterItsProperty() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        let verdicts = Properties.evaluate(b.trace, PropertyContext())
        #expect(verdicts.map(\.property) == Properties.all.map(\.id))
        let some = Properties.evaluate(b.trace, PropertyContext(), only: ["integrity", "nope", "cellular-policy"])
        #expect(some.map(\.property) == ["integrity", "cellular-policy"])
    }

    @Test func anEmptyTraceIsNotApplicableEverywhere() {
        let verdicts = Properties.evaluate(ScenarioTrace([]), PropertyContext(hashManifest: ["/a": "b"]))
        for verdict in verdicts {
            #expect(verdict.outcome == .notApplicable, "\(verdict.property): \(verdict.summary)")
        }
    }

    @Test func aNonsensicalTraceGivesVerdictsNotCrashes() {
        var b = TraceBuilder()
        // A response "longer" than the time since the epoch, states for an unknown
        // token, a launch with no kill, a kill with no launch, a foreground with no
        // background, absurd bounds and byte counts.
        b.origin("/videos/x/seg.ts", bytes: Int.max, at: 1, duration: 50)
        b.origin("/videos/x/seg.ts", bytes: Int.max, at: 2)
        b.change("ghost", from: .downloaded, to: .downloading, at: 1)
        b.launch(after: .userForceQuit, at: 2)
        b.lifecycle(foreground: true, at: 3)
        b.request("d1", video: "x", at: 4, allowsCellular: true, protected: true)
        b.interface(.wifi, up: false, at: 5)
        b.interface(.cellular, up: false, at: 5)
        b.stored("d1", path: "/videos/x/seg.ts", bytes: .max, at: 6)
        b.stored("d1", path: "/videos/x/seg.ts", bytes: .max, index: 1, at: 6)
        b.kill(at: 7)
        b.progress("d1", -.infinity, at: 8)
        let context = PropertyContext(
            suspendBound: .seconds(Int64.max), resumeBound: .seconds(Int64.max), maximumRequestsPerOutage: -1)
        let verdicts = Properties.evaluate(b.trace, context)
        #expect(verdicts.count == Properties.all.count)
        #expect(verdicts.first { $0.property == "legal-transitions" }?.outcome == .failed)
        _ = ScenarioMetrics.measure(b.trace)
    }
}

@Suite struct ScenarioTraceTests {
    @Test func entriesAreSortedStablyAndDownloadsCollected() {
        let entries = [
            TraceEntry(t: 5, .agent(.stateChanged(download: "d1", from: .requested, to: .downloading))),
            TraceEntry(t: 1, .harness(.downloadRequested(
                video: "clear", download: "d1", allowsCellular: true, protected: false, error: nil))),
            TraceEntry(t: 1, .agent(.stateChanged(download: "d1", from: .notDownloaded, to: .requested))),
            TraceEntry(t: 2, .harness(.downloadRequested(
                video: "drm", download: nil, allowsCellular: false, protected: true, error: "refused"))),
        ]
        let trace = ScenarioTrace(entries)
        #expect(trace.entries.map(\.t) == [1, 1, 2, 5])
        #expect(trace.end == 5)
        #expect(trace.downloads.map(\.token) == ["d1"])
        #expect(trace.download("d1")?.changes.map(\.to) == [.requested, .downloading])
        #expect(trace.download("d1")?.allowedInterfaces == [.wifi, .cellular])
        #expect(trace.download("d1")?.state(before: 5) == .requested)
        #expect(trace.download("d1")?.state(atOrBefore: 5) == .downloading)
    }

    @Test func outagesDependOnTheInterfacesADownloadMayUse() {
        var b = TraceBuilder()
        b.request("wifiOnly", video: "a", at: 0)
        b.request("any", video: "b", at: 0, allowsCellular: true)
        b.interface(.wifi, up: false, at: 10)
        b.interface(.cellular, up: false, at: 12)
        b.interface(.wifi, up: true, at: 20)
        let trace = b.trace
        let wifiOnly = trace.outages(of: trace.downloads[0])
        let any = trace.outages(of: trace.downloads[1])
        #expect(wifiOnly.map(\.start) == [ns(10)] && wifiOnly.map(\.end) == [ns(20)])
        #expect(any.map(\.start) == [ns(12)] && any.map(\.end) == [ns(20)])
        #expect(wifiOnly.first?.startCause == "wifi down (reset)")
        #expect(trace.interfaces.cellularOnly.map(\.start) == [ns(10)])
        #expect(trace.interfaces.offline.map(\.end) == [ns(20)])
    }

    @Test func aGivenPathCountsOnlyBeforeTheFirstLinkEvent() {
        var b = TraceBuilder()
        b.path([.wifi], at: 0)
        b.interface(.wifi, up: false, at: 10)
        b.path([.wifi], at: 11)  // lags or lies: ignored
        let trace = b.trace
        #expect(trace.interfaces.up(at: ns(5)) == [.wifi])
        #expect(trace.interfaces.up(at: ns(12)).isEmpty)
        var pathsOnly = TraceBuilder()
        pathsOnly.path([.cellular], at: 1)
        pathsOnly.path([], at: 2)
        #expect(pathsOnly.trace.interfaces.up(at: ns(1)) == [.cellular])
        #expect(pathsOnly.trace.interfaces.offline.map(\.start) == [ns(2)])
    }

    @Test func originRequestsStartTheirDurationBeforeTheirEntry() {
        var b = TraceBuilder()
        b.origin("http://origin:8080/videos/clear/400k/seg3.ts?x=1", bytes: 10, at: 3, duration: 1)
        let request = b.trace.originRequests[0]
        #expect(request.start == ns(2) && request.t == ns(3))
        #expect(request.path == "/videos/clear/400k/seg3.ts" && request.video == "clear")
        #expect(OriginPath.video(of: "/catalog.json") == nil)
        #expect(OriginPath.isMediaSegment("/videos/a/1/seg.m4s") && !OriginPath.isMediaSegment("/videos/a/index.m3u8"))
    }

    @Test func backgroundSpansAndRestartsPairUp() {
        var b = TraceBuilder()
        b.lifecycle(foreground: false, at: 1)
        b.lifecycle(foreground: false, at: 2)
        b.lifecycle(foreground: true, at: 3)
        b.lifecycle(foreground: false, at: 4)
        b.kill(at: 5)
        b.kill(at: 6)
        b.launch(after: .crash, at: 7)
        let trace = b.trace
        #expect(trace.backgroundIntervals.map(\.start) == [ns(1), ns(4)])
        #expect(trace.backgroundIntervals.map(\.end) == [ns(3), nil])
        #expect(trace.isInBackground(at: ns(2.5)) && !trace.isInBackground(at: ns(3.5)))
        #expect(trace.restarts.map(\.launch?.t) == [nil, ns(7)])
    }
}
