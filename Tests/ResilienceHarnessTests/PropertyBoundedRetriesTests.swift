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

    @Test func noOutageDuringADownloadIsNotApplicable() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.state("d1", .downloaded, at: 5)
        b.interface(.wifi, up: false, at: 10)
        #expect(evaluate(id, b).outcome == .notApplicable)
    }
}
