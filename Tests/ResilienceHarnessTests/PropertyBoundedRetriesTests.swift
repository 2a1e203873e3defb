import BenchCore
import AppProtocol
import ResilienceHarness
import Testing

@Suite struct PropertyBoundedRetriesTests {
    let id = "bounded-retries"

    /// d1 (WiFi only) downloads; WiFi is down from 10 s to 20 s; `requests` origin
    /// requests for its video start inside the outage (cellular carries them).
    func outage(requests: Int) -> TraceBuilder {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.origin("/videos/clear/400k/seg0.ts", bytes: 1000, at: 9)
        b.interface(.wifi, up: false, mode: .blackhole, at: 10)
        b.state("d1", .suspended(.cellularNotAllowed), at: 10.5)
        for index in 0..<requests {
            b.origin("/videos/clear/400k/seg1.ts", bytes: 0, interface: "cellular", at: 11 + Double(index) * 0.1)
        }
        b.origin("/videos/other/400k/seg1.ts", bytes: 0, at: 11)
        b.interface(.wifi, up: true, at: 20)
        b.state("d1", .downloading, at: 20.5)
        b.state("d1", .downloaded, at: 30)
        return b
    }

    @Test func fewRequestsDuringAnOutagePass() {
        let verdict = evaluate(id, outage(requests: 3))
        #expect(verdict.outcome == .passed)
        expectEvidence(verdict, at: 10, contains: "3 origin requests for download d1 during the outage from 10.000 s (wifi down (blackhole)) lasting 10.000 s")
    }

    @Test func aStormFails() {
        let verdict = evaluate(id, outage(requests: 21))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 10, contains: "21 origin requests for download d1 during the outage")
        expectEvidence(verdict, at: 10, contains: "above the bound of 20")
        #expect(evaluate(id, outage(requests: 21), PropertyContext(maximumRequestsPerOutage: 21)).outcome == .passed)
    }

    /// d1 (WiFi only) downloads on connection 1; WiFi is blackholed from 10 s to 30 s.
    /// The app gives each held connection up after 4 s and reconnects `delay` seconds
    /// later (connections 2, 3, 4…).
    func stallsAndReconnects(delay: Double, secondTransfer: Bool = false) -> TraceBuilder {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        if secondTransfer { b.request("d2", video: "protected", at: 0.5) }
        b.state("d1", .downloading, at: 1)
        if secondTransfer { b.state("d2", .downloading, at: 1.5) }
        b.accepted(.wifi, connection: 1, at: 1)
        b.interface(.wifi, up: false, mode: .blackhole, at: 10)
        var closeAt = 14.0
        b.connectionClosed(1, delivered: 1000, at: closeAt)
        for connection: UInt64 in 2...5 {
            b.accepted(.wifi, connection: connection, at: closeAt + delay)
            closeAt += delay + 4
            if closeAt < 30 { b.connectionClosed(connection, delivered: 0, at: closeAt) }
        }
        b.state("d1", .suspended(.network), at: 15)
        b.interface(.wifi, up: true, at: 30)
        b.state("d1", .downloading, at: 30.5)
        b.state("d1", .downloaded, at: 40)
        return b
    }

    @Test func reconnectingAtOnceAfterEveryStallIsNoBackoff() {
        let verdict = evaluate(id, stallsAndReconnects(delay: 0.001))
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 14.001, contains: "2 retries in a row on wifi, each within 0.005 s of the failure before it, "
            + "during the outage from 10.000 s (wifi down (blackhole)): 14.001 s (0.001 s after a failure), 18.002 s (0.001 s "
            + "after a failure); at most 1 in a row (1 per transfer or open connection cut, 1 cut): no backoff")
        // Few attempts: the count alone would have let it through.
        #expect(!verdict.evidence.contains { $0.text.contains("above the bound of") })
    }

    /// The Python engine in CI: one download with two segments on their way (two
    /// connections) when WiFi went down (refuse); each connection, found closed, was
    /// reopened at once (refused): two immediate retries in a row, one per connection cut.
    @Test func eachConnectionTheOutageCutMayBeReopenedOnceAtOnce() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.accepted(.wifi, connection: 1, at: 1)
        b.accepted(.wifi, connection: 2, at: 1.01)
        b.interface(.wifi, up: false, mode: .refuse, at: 10)
        b.connectionClosed(1, delivered: 1000, at: 10.001)
        b.connectionClosed(2, delivered: 1000, at: 10.001)
        b.refused(.wifi, at: 10.002)
        b.refused(.wifi, at: 10.002)
        b.state("d1", .suspended(.network), at: 10.1)
        b.interface(.wifi, up: true, at: 20)
        b.state("d1", .downloading, at: 20.1)
        b.state("d1", .downloaded, at: 30)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        // A third at once after the two refusals is a storm.
        b.refused(.wifi, at: 10.003)
        let storm = evaluate(id, b)
        #expect(storm.outcome == .failed)
        #expect(storm.evidence.contains { $0.text.contains("at most 2 in a row (1 per transfer or open connection cut, 2 cut)") },
                "\(storm.evidence.map(\.text))")
    }

    @Test func waitingAfterAFailureOrRetryingAtOnceOnlyOnceIsBackoff() {
        #expect(evaluate(id, stallsAndReconnects(delay: 0.05)).outcome == .passed)
        // One immediate retry, then a wait.
        var once = TraceBuilder()
        once.request("d1", video: "clear", at: 0)
        once.state("d1", .downloading, at: 1)
        once.interface(.wifi, up: false, mode: .refuse, at: 10)
        once.connectionReset(.wifi, connection: 1, at: 10)
        once.refused(.wifi, at: 10.002)
        once.refused(.wifi, at: 10.6)
        once.refused(.wifi, at: 10.601)
        once.state("d1", .suspended(.network), at: 11)
        once.interface(.wifi, up: true, at: 20)
        once.state("d1", .downloading, at: 20.5)
        once.state("d1", .downloaded, at: 30)
        let verdict = evaluate(id, once)
        // 10.601 s follows a refusal at 10.6 s of an attempt made beside it (two connects at
        // once), not a failure of an earlier attempt: not a retry of it.
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
    }

    @Test func twoTransfersCutMayEachRetryOnceAtOnce() {
        #expect(evaluate(id, stallsAndReconnects(delay: 0.001, secondTransfer: true)).outcome == .failed,
                "four in a row is too many for two transfers")
        var two = TraceBuilder()
        two.request("d1", video: "clear", at: 0)
        two.request("d2", video: "protected", at: 0)
        two.state("d1", .downloading, at: 1)
        two.state("d2", .downloading, at: 1)
        two.accepted(.wifi, connection: 1, at: 1)
        two.accepted(.wifi, connection: 2, at: 1)
        two.interface(.wifi, up: false, mode: .blackhole, at: 10)
        two.connectionClosed(1, delivered: 0, at: 14)
        two.accepted(.wifi, connection: 3, at: 14.001)
        two.connectionClosed(2, delivered: 0, at: 14.5)
        two.accepted(.wifi, connection: 4, at: 14.501)
        two.state("d1", .suspended(.network), at: 16)
        two.state("d2", .suspended(.network), at: 16)
        two.interface(.wifi, up: true, at: 20)
        two.state("d1", .downloading, at: 20.5)
        two.state("d2", .downloading, at: 20.5)
        two.state("d1", .downloaded, at: 30)
        two.state("d2", .downloaded, at: 30)
        #expect(evaluate(id, two).outcome == .passed, "\(evaluate(id, two).evidence)")
    }

    @Test func noOutageDuringADownloadIsNotApplicable() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.state("d1", .downloaded, at: 5)
        b.interface(.wifi, up: false, at: 10)
        #expect(evaluate(id, b).outcome == .notApplicable)
    }
}

/// `bounded-retries`' connection-attempt check: what the conditioner saw during an outage.
@Suite struct PropertyBoundedRetriesAttemptTests {
    let id = "bounded-retries"

    /// d1 (WiFi only) downloads; WiFi goes down in `mode` at 10 s and returns at 20 s,
    /// seen by the harness and the conditioner alike.
    func outage(_ mode: DownMode = .reset, downloads: [String] = ["d1"]) -> TraceBuilder {
        var b = TraceBuilder()
        b.interface(.wifi, up: true, at: 0)
        b.interface(.cellular, up: false, mode: .refuse, at: 0)
        for token in downloads {
            b.request(token, video: "clear-\(token)", at: 0.5)
            b.state(token, .downloading, at: 1)
        }
        b.accepted(.wifi, connection: 1, at: 1)
        b.interface(.wifi, up: false, mode: mode, at: 10)
        b.conditionerDown(.wifi, mode: mode, at: 10)
        if mode == .reset { b.connectionReset(.wifi, connection: 1, at: 10) }
        for token in downloads { b.state(token, .suspended(.network), at: 10.2) }
        return b
    }

    func recovered(_ b: inout TraceBuilder, downloads: [String] = ["d1"]) {
        b.interface(.wifi, up: true, at: 20)
        b.conditionerUp(.wifi, at: 20)
        b.accepted(.wifi, connection: 100, at: 20.1)
        for token in downloads {
            b.state(token, .downloading, at: 20.2)
            b.state(token, .downloaded, at: 30)
        }
    }

    @Test func aClientHammeringARefusedPortFails() {
        var b = outage()
        b.refused(.wifi, count: 200, from: 10, every: 0.05)
        recovered(&b)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 10, contains: "200 connection attempts on wifi (0 accepted, 200 refused at the "
            + "conditioner) during the outage from 10.000 s (wifi down (reset)) lasting 10.000 s: 20.0 per second, "
            + "above the bound of 20.0 (10 + 1.0 per second × 10.0 s)")
        expectEvidence(verdict, at: 10, contains: "download d1 in flight (the app's attempts")
        #expect(verdict.summary.contains("1 retry storm"), "\(verdict.summary)")
        // The bound is the context's.
        #expect(evaluate(id, b, PropertyContext(retryBurst: 190)).outcome == .passed)
        #expect(evaluate(id, b, PropertyContext(retryRate: 19)).outcome == .passed)
        #expect(evaluate(id, b, PropertyContext(retryRate: 18.9)).outcome == .failed)
    }

    @Test func aClientThatBacksOffPasses() {
        var b = outage(.refuse)
        // Two connects per retry (two segments at a time), the waits doubling.
        for t in [10.0, 10.4, 11.2, 12.9, 16.1] {
            b.refused(.wifi, at: t)
            b.refused(.wifi, at: t + 0.01)
        }
        recovered(&b)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed)
        expectEvidence(verdict, at: 10, contains: "10 connection attempts on wifi (0 accepted, 10 refused at the "
            + "conditioner) during the outage from 10.000 s (wifi down (refuse)) lasting 10.000 s: 1.0 per second, "
            + "within the bound of 20.0")
        #expect(verdict.summary.contains("At most 10 (1.0 per second) connection attempts per outage"), "\(verdict.summary)")
    }

    @Test func connectionsABlackholedInterfaceAcceptsAndHoldsCount() {
        var b = outage(.blackhole)
        for index in 0..<30 { b.accepted(.wifi, connection: UInt64(10 + index), at: 10 + Double(index) * 0.3) }
        recovered(&b)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 10, contains: "30 connection attempts on wifi (30 accepted, 0 refused at the conditioner)")
    }

    @Test func attemptsOnAnInterfaceTheDownloadMayNotUseAreNotCounted() {
        var b = outage()
        b.interface(.cellular, up: true, at: 9)
        for index in 0..<200 { b.accepted(.cellular, connection: UInt64(10 + index), at: 10 + Double(index) * 0.05) }
        recovered(&b)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed)
        expectEvidence(verdict, at: 10, contains: "0 connection attempts on wifi")
    }

    @Test func anOutageSharedByTwoDownloadsIsJudgedOnceForTheApp() {
        var b = outage(downloads: ["d1", "d2"])
        b.refused(.wifi, count: 50, from: 10, every: 0.1)
        recovered(&b, downloads: ["d1", "d2"])
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        let storms = verdict.evidence.filter { $0.text.contains("connection attempts") }
        #expect(storms.count == 1, "\(storms)")
        expectEvidence(verdict, at: 10, contains: "50 connection attempts on wifi")
        expectEvidence(verdict, at: 10, contains: "downloads d1, d2 in flight")

        var calm = outage(downloads: ["d1", "d2"])
        calm.refused(.wifi, count: 15, from: 10, every: 0.5)
        recovered(&calm, downloads: ["d1", "d2"])
        let passed = evaluate(id, calm)
        #expect(passed.outcome == .passed)
        #expect(passed.evidence.filter { $0.text.contains("connection attempts") }.count == 1)
        // Each download's origin requests are still judged on their own.
        expectEvidence(passed, at: 10, contains: "0 origin requests for download d1")
        expectEvidence(passed, at: 10, contains: "0 origin requests for download d2")
    }

    /// Chaos seed 5: two transfers cut by a 2.9 s outage retried 14 times between them;
    /// each transfer cut may retry its own requests, so the bound is per transfer.
    @Test func theBoundGrowsWithTheTransfersTheOutageCut() {
        var two = outage(downloads: ["d1", "d2"])
        two.refused(.wifi, count: 14, from: 10, every: 0.2)
        two.interface(.wifi, up: true, at: 12.9)
        two.conditionerUp(.wifi, at: 12.9)
        let shared = evaluate(id, two)
        #expect(shared.outcome == .passed, "\(shared.evidence)")
        expectEvidence(shared, at: 10, contains: "within the bound of 25.8 (2 transfers cut × (10 + 1.0 per second × 2.9 s))")
        var one = outage(downloads: ["d1"])
        one.refused(.wifi, count: 14, from: 10, every: 0.2)
        one.interface(.wifi, up: true, at: 12.9)
        one.conditionerUp(.wifi, at: 12.9)
        let alone = evaluate(id, one)
        #expect(alone.outcome == .failed)
        expectEvidence(alone, at: 10, contains: "above the bound of 12.9 (10 + 1.0 per second × 2.9 s)")
    }

    /// A download still `requested` when the outage began (fetching its playlists or its
    /// license) is a transfer the outage cut as much as a `downloading` one (the false
    /// alarm of three misbehaviour campaigns, seed 5: its retries counted against the
    /// other's bound alone).
    @Test func aDownloadStillRequestedIsATransferCutToo() {
        var b = TraceBuilder()
        b.interface(.wifi, up: true, at: 0)
        b.interface(.cellular, up: false, mode: .refuse, at: 0)
        b.request("d1", video: "clear-d1", at: 0.5)
        b.state("d1", .downloading, at: 1)
        b.request("d2", video: "clear-d2", at: 9.9)
        b.interface(.wifi, up: false, mode: .reset, at: 10)
        b.conditionerDown(.wifi, mode: .reset, at: 10)
        b.state("d1", .suspended(.network), at: 10.2)
        b.state("d2", .suspended(.network), at: 10.2)
        b.refused(.wifi, count: 14, from: 10, every: 0.2)
        b.interface(.wifi, up: true, at: 12.9)
        b.conditionerUp(.wifi, at: 12.9)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed, "\(verdict.evidence)")
        expectEvidence(verdict, at: 10, contains: "within the bound of 25.8 (2 transfers cut × (10 + 1.0 per second × 2.9 s))")
    }

    @Test func attemptsBeforeADownloadWasRequestedAreNotItsRetries() {
        var b = TraceBuilder()
        b.interface(.wifi, up: false, mode: .refuse, at: 0)
        b.interface(.cellular, up: false, mode: .refuse, at: 0)
        b.refused(.wifi, count: 100, from: 1, every: 0.05)
        b.request("d1", video: "clear", at: 10)
        b.refused(.wifi, count: 5, from: 10.5, every: 2)
        recovered(&b)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .passed)
        expectEvidence(verdict, at: 0, contains: "5 connection attempts on wifi (0 accepted, 5 refused at the conditioner) "
            + "during the outage from 0.000 s (wifi down (refuse)) lasting 20.000 s, counted from the request at 10.000 s")
    }

    @Test func aStormWithNoDownloadInFlightIsNotApplicable() {
        var b = TraceBuilder()
        b.interface(.wifi, up: true, at: 0)
        b.request("d1", video: "clear", at: 0.5)
        b.state("d1", .downloading, at: 1)
        b.state("d1", .downloaded, at: 5)
        b.interface(.wifi, up: false, at: 10)
        b.refused(.wifi, count: 200, from: 10, every: 0.05)
        b.interface(.wifi, up: true, at: 20)
        #expect(evaluate(id, b).outcome == .notApplicable)
    }
}

/// The connection attempts `ScenarioTrace` derives from the conditioner's events.
@Suite struct ConnectionAttemptFactsTests {
    @Test func acceptedAndRefusedConnectsAreAttemptsWithTheirResets() {
        var b = TraceBuilder()
        b.accepted(.wifi, connection: 1, at: 1)
        b.accepted(.cellular, connection: 2, at: 2)
        b.connectionReset(.wifi, connection: 1, at: 3)
        b.refused(.wifi, at: 4, peer: "127.0.0.1:5000")
        b.refused(.cellular, at: 5)
        let trace = b.trace
        #expect(trace.connectionAttempts.map(\.t) == [ns(1), ns(2), ns(4), ns(5)])
        #expect(trace.connectionAttempts.map(\.outcome) == [.accepted, .accepted, .refused, .refused])
        #expect(trace.connectionAttempts.map(\.interface) == [.wifi, .cellular, .wifi, .cellular])
        #expect(trace.connectionAttempts[0].resetAt == ns(3))
        #expect(trace.connectionAttempts[1].resetAt == nil)
        #expect(trace.connectionAttempts[2].peer == "127.0.0.1:5000")
        #expect(trace.connectionAttempts[2].connection == nil)
        let wifi = trace.connectionAttempts(on: [.wifi], from: ns(1), before: ns(4))
        #expect(wifi.map(\.t) == [ns(1)])
        #expect(trace.connectionAttempts(on: [.wifi, .cellular], from: ns(2), before: nil).count == 3)
    }
}
