import BenchCore
import AppProtocol
import ResilienceHarness
import Testing

@Suite struct PropertyCellularPolicyTests {
    let id = "cellular-policy"

    /// d1 (WiFi only, video "clear") and d2 (cellular allowed, video "drm") download;
    /// WiFi is down from 10 s to 40 s while cellular stays up.
    func wifiOutage(d1Requests: (inout TraceBuilder) -> Void = { _ in }) -> TraceBuilder {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.request("d2", video: "drm", at: 0, allowsCellular: true)
        b.state("d1", .downloading, at: 1)
        b.state("d2", .downloading, at: 1)
        b.origin("/videos/clear/400k/seg0.ts", bytes: 1000, interface: "wifi", at: 2)
        b.origin("/videos/drm/400k/seg0.ts", bytes: 1000, interface: "wifi", at: 2)
        b.interface(.wifi, up: false, at: 10)
        b.state("d1", .suspended(.cellularNotAllowed), at: 10.5)
        b.origin("/videos/drm/400k/seg1.ts", bytes: 1500, interface: "cellular", at: 12, duration: 1)
        d1Requests(&b)
        b.interface(.wifi, up: true, at: 40)
        b.state("d1", .downloading, at: 40.5)
        b.state("d1", .downloaded, at: 50)
        b.state("d2", .downloaded, at: 50)
        return b
    }

    @Test func eachDownloadFollowsItsSetting() {
        let verdict = evaluate(id, wifiOutage())
        #expect(verdict.outcome == .passed)
        expectEvidence(verdict, at: 0, contains: "download d1 (cellular not allowed): 0 of 1 origin request for video clear over cellular")
        expectEvidence(verdict, at: 11, contains: "download d2 (cellular allowed) fetched 1 request (1500 bytes) over cellular")
        expectEvidence(verdict, at: 25, contains: "download d1 suspended(cellularNotAllowed) while only cellular was up")
        #expect(verdict.summary.contains("1500 bytes went over cellular"))
    }

    @Test func aForbiddenDownloadFetchingOverCellularFails() {
        let verdict = evaluate(id, wifiOutage { b in
            b.origin("/videos/clear/400k/seg1.ts?token=x", bytes: 700, interface: "cellular", at: 14, duration: 0.5)
        })
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 13.5, contains: "origin GET /videos/clear/400k/seg1.ts over cellular (700 bytes) for download d1")
    }

    @Test func aForbiddenDownloadStillDownloadingOverCellularOnlyFails() {
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.state("d1", .downloading, at: 1)
        b.interface(.wifi, up: false, at: 10)
        b.interface(.wifi, up: true, at: 40)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 25, contains: "download d1 (cellular not allowed) still downloading 15.000 s after only cellular was up")
    }

    @Test func anAllowedDownloadThatStopsOnCellularFails() {
        var b = TraceBuilder()
        b.request("d2", video: "drm", at: 0, allowsCellular: true)
        b.state("d2", .downloading, at: 1)
        b.interface(.wifi, up: false, at: 10)
        b.state("d2", .suspended(.cellularNotAllowed), at: 10.2)
        b.interface(.wifi, up: true, at: 40)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 10.2, contains: "download d2 (cellular allowed) downloading → suspended(cellularNotAllowed)")
        expectEvidence(verdict, at: 10, contains: "fetched nothing over cellular in the 30.000 s with only cellular up")
    }

    @Test func withoutCellularEverUpItIsNotApplicable() {
        var b = TraceBuilder()
        b.path([.wifi], at: 0)
        b.request("d1", video: "clear", at: 1)
        b.state("d1", .downloading, at: 2)
        b.state("d1", .downloaded, at: 9)
        #expect(evaluate(id, b).outcome == .notApplicable)
    }

    /// A request with no PROXY header reached the origin (the harness's origin refuses
    /// it): it went around the conditioner, so no interface can be vouched for.
    @Test func aRequestAroundTheConditionerFails() {
        var b = wifiOutage()
        b.origin("/videos/clear/master.m3u8", bytes: 0, interface: nil, at: 3)
        let verdict = evaluate(id, b)
        #expect(verdict.outcome == .failed)
        expectEvidence(verdict, at: 3, contains: "1 request reached the origin around the link conditioner (no PROXY header)")
        expectEvidence(verdict, at: 3, contains: "paths: /videos/clear/master.m3u8")
    }

    /// The conditioner's own count: every byte over cellular must be for a download
    /// allowed cellular, matched from the connection to the request it carried (the PROXY
    /// header's client address); the origin's log alone is not the judge of it.
    @Test func cellularBytesAtTheConditionerMustBeForADownloadAllowedCellular() {
        var allowedOnly = wifiOutage()
        allowedOnly.delivery("/videos/drm/400k/seg1.ts", through: .cellular, connection: 7, from: 11, to: 12)
        let passed = evaluate(id, allowedOnly)
        #expect(passed.outcome == .passed, "\(passed)")
        expectEvidence(passed, at: 11.25, contains: "the conditioner forwarded 100000 bytes over cellular, all for downloads allowed cellular")

        // The same bytes carried a segment of d1, which may not use cellular.
        var forbidden = wifiOutage()
        forbidden.delivery("/videos/clear/400k/seg1.ts", through: .cellular, connection: 7, from: 11, to: 12)
        let failed = evaluate(id, forbidden)
        #expect(failed.outcome == .failed)
        expectEvidence(failed, at: 11.25, contains: "over cellular for no download allowed cellular, the first at 11.250 s for GET /videos/clear/400k/seg1.ts")

        // Bytes no request explains, before any download allowed cellular was requested.
        var b = TraceBuilder()
        b.request("d1", video: "clear", at: 0)
        b.linkBytes(800, through: .cellular, direction: .uplink, connection: 9, at: 5)
        b.linkBytes(64_000, through: .cellular, connection: 9, at: 6)
        b.state("d1", .downloaded, at: 9)
        let unexplained = evaluate(id, b)
        #expect(unexplained.outcome == .failed)
        expectEvidence(unexplained, at: 5, contains: "64800 bytes over cellular for no download allowed cellular, the first at 5.000 s for a connection no request can be matched to")
    }
}
