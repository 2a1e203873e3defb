import BenchCore
import AppProtocol
import ResilienceHarness
import Testing

@Suite struct MetricsTests {
    /// Two downloads, one outage of both interfaces (10–20 s), one crash (25 s), with
    /// figures small enough to add up by hand (see each expectation).
    func scenario() -> TraceBuilder {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 1)
        b.state("d1", .downloading, at: 1.5)
        b.request("d2", video: "drm", at: 2, allowsCellular: true)
        b.state("d2", .downloading, at: 2.5)
        b.origin("/videos/clear/400k/index.m3u8", bytes: 300, at: 2)
        b.origin("/videos/clear/400k/seg0.ts", bytes: 1000, at: 3, duration: 1)
        b.stored("d1", path: "/videos/clear/400k/seg0.ts", bytes: 1000, index: 0, at: 3.1)
        b.origin("/videos/drm/400k/seg0.ts", bytes: 2000, interface: "cellular", at: 4)
        b.stored("d2", path: "/videos/drm/400k/seg0.ts", bytes: 2000, index: 0, at: 4.1)
        b.interface(.wifi, up: false, at: 10)
        b.interface(.cellular, up: false, at: 10)
        b.state("d1", .suspended(.network), at: 10.5)
        b.state("d2", .suspended(.network), at: 11)
        b.origin("/videos/clear/400k/seg1.ts", bytes: 0, at: 12)
        b.interface(.wifi, up: true, at: 20)
        b.interface(.cellular, up: true, at: 20)
        b.state("d1", .downloading, at: 21)
        b.state("d2", .downloading, at: 22.5)
        b.kill(at: 25)
        b.disk(at: 25.1, stored: ["/videos/clear/400k/seg0.ts", "/videos/drm/400k/seg0.ts"])
        b.launch(after: .crash, at: 26)
        b.origin("/videos/clear/400k/seg0.ts", bytes: 1000, at: 27, duration: 0.5)
        b.origin("/videos/clear/400k/seg1.ts", bytes: 1000, at: 28)
        b.stored("d1", path: "/videos/clear/400k/seg1.ts", bytes: 1000, index: 1, at: 28.1)
        b.origin("/videos/drm/400k/seg1.ts", bytes: 2000, at: 29)
        b.stored("d2", path: "/videos/drm/400k/seg1.ts", bytes: 2000, index: 1, at: 29.1)
        b.state("d1", .downloaded, at: 30)
        b.state("d2", .downloaded, at: 41)
        b.note("agent_peak_rss_bytes=52428800", at: 42)
        b.note("agent_peak_rss_bytes=41943040", at: 43)
        return b
    }

    @Test func figuresAddUp() {
        let metrics = ScenarioMetrics.measure(scenario().trace)
        // First request at 1 s, last downloaded at 41 s.
        #expect(metrics.timeToCompleteSeconds == 40)
        // 1000 + 2000 + 1000 + 2000 content bytes, × 8 bits, over 40 s.
        #expect(metrics.goodputBitsPerSecond == 1200)
        // WiFi: 300 + 1000 + 0 + 1000 + 1000 + 2000; cellular: 2000.
        #expect(metrics.bytesByInterface == ["wifi": 5300, "cellular": 2000])
        // Segment bytes sent 7000 (the playlist's 300 not counted) − 6000 stored.
        #expect(metrics.wastedBytes == 1000)
        // d1 suspended 0.5 s after the outage began, d2 1.0 s: the worst is 1.0 s.
        #expect(metrics.suspendLatencySeconds == 1.0)
        // d1 resumed 1.0 s after, d2 2.5 s.
        #expect(metrics.resumeLatencySeconds == 2.5)
        // seg0, on disk whole at the kill at 25 s, fetched again at 26.5 s.
        #expect(metrics.bytesRefetchedAfterCrash == 1000)
        // One request (clear seg1 at 12 s) inside an outage.
        #expect(metrics.requestsDuringOutages == 1)
        #expect(metrics.agentPeakRSSBytes == 52_428_800)
        #expect(metrics.figures["bytes_cellular"] == 2000)
    }

    /// Resume promptness from the evidence, not the app's word: WiFi comes back at 20 s
    /// and the harness tells the app at 20.2 s; both downloads claim `downloading` at
    /// 20.25 s, but the app sends d1's next request only at 21.7 s (a slow link delivers
    /// it at 22.5 s). d2's request went at 20.1 s, a retry of its own before the path
    /// came: 0.
    @Test func resumePromptnessRunsFromThePathTheAppWasGivenToTheRequestItSent() {
        var b = TraceBuilder()
        for (token, video) in [("d1", "clear"), ("d2", "drm")] {
            b.request(token, video: video, at: 1)
            b.state(token, .downloading, at: 1.5)
            b.state(token, .suspended(.network), at: 10.5)
        }
        b.interface(.wifi, up: false, at: 10)
        b.interface(.wifi, up: true, at: 20)
        b.sentRequest("/videos/drm/400k/seg1.ts", connection: 4, sent: 20.1, reached: 20.3)
        b.path([.wifi], at: 20.2)
        b.state("d1", .downloading, at: 20.25)
        b.state("d2", .downloading, at: 20.25)
        b.sentRequest("/videos/clear/400k/seg1.ts", connection: 5, sent: 21.7, reached: 22.5)
        b.state("d1", .downloaded, at: 30)
        b.state("d2", .downloaded, at: 30)
        let trace = b.trace
        #expect(trace.resumeRequests.map { [$0.response.download.token, "\($0.told)", "\($0.latency)"] }
            == [["d1", "\(ns(20.2))", "\(ns(1.5))"], ["d2", "\(ns(20.2))", "0"]])
        let metrics = ScenarioMetrics.measure(trace)
        #expect(metrics.resumeRequestLatencySeconds == 1.5)
        #expect(metrics.resumeLatencySeconds == 0.25, "the claims said 0.25 s")
        #expect(metrics.figures["resume_request_latency_s"] == 1.5)
    }

    /// No path was sent (the profile withheld the update): from the outage's end. A
    /// download paused when the outage ended, or one that asked nothing before the next
    /// kill, is left out.
    @Test func resumePromptnessWithoutAPathRunsFromTheOutagesEnd() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 1)
        b.state("d1", .downloading, at: 1.5)
        b.request("d2", video: "drm", at: 1)
        b.state("d2", .downloading, at: 1.5)
        b.interface(.wifi, up: false, at: 10)
        b.state("d1", .suspended(.network), at: 10.5)
        b.state("d2", .suspended(.user), at: 11)
        b.interface(.wifi, up: true, at: 20)
        b.sentRequest("/videos/clear/400k/seg1.ts", connection: 5, sent: 23, reached: 23.1)
        b.sentRequest("/videos/drm/400k/seg1.ts", connection: 6, sent: 24, reached: 24.1)
        #expect(b.trace.resumeRequests.map(\.latency) == [ns(3)])
        #expect(ScenarioMetrics.measure(b.trace).resumeRequestLatencySeconds == 3)
    }

    @Test func anEmptyTraceMeasuresNothing() {
        let metrics = ScenarioMetrics.measure(ScenarioTrace([]))
        #expect(metrics == ScenarioMetrics())
    }

    @Test func directRequestsAndForceQuitsLeaveTheirFiguresOut() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.origin("/videos/clear/400k/seg0.ts", bytes: 800, interface: nil, at: 2)
        b.stored("d1", path: "/videos/clear/400k/seg0.ts", bytes: 1000, at: 2.1)
        b.kill(at: 3)
        b.launch(after: .userForceQuit, at: 4)
        b.origin("/videos/clear/400k/seg0.ts", bytes: 1000, interface: nil, at: 5)
        b.state("d1", .failed, at: 4.1)
        let metrics = ScenarioMetrics.measure(b.trace)
        #expect(metrics.bytesByInterface.isEmpty)
        #expect(metrics.bytesRefetchedAfterCrash == nil)
        #expect(metrics.timeToCompleteSeconds == nil && metrics.goodputBitsPerSecond == nil)
        // 1800 segment bytes sent for 1000 stored.
        #expect(metrics.wastedBytes == 800)
        #expect(metrics.suspendLatencySeconds == nil && metrics.requestsDuringOutages == nil)
        #expect(metrics.agentPeakRSSBytes == nil)
    }

    @Test func aCrashWithNothingFetchedAgainMeasuresZero() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.stored("d1", path: "/videos/clear/400k/seg0.ts", bytes: 1000, at: 1)
        b.kill(at: 2)
        b.disk(at: 2.1, stored: ["/videos/clear/400k/seg0.ts"])
        b.launch(after: .memoryPressure, at: 3)
        b.origin("/videos/clear/400k/seg1.ts", bytes: 1000, at: 4)
        #expect(ScenarioMetrics.measure(b.trace).bytesRefetchedAfterCrash == 0)
    }
}
