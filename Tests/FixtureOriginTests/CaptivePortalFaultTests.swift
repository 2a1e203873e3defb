import BenchCore
import FixtureOrigin
import Foundation
import Testing

/// The captive-portal fault, and the rules a profile's origin fault windows become.
@Suite(.timeLimit(.minutes(2))) struct CaptivePortalFaultTests {
    @Test func answersEveryRequestWithTheLoginPage() async throws {
        try await withOrigin { server in
            server.setFaultRules(try FaultRuleSet(rules: [FaultRule(id: "portal", path: "/**", fault: .captivePortal)]))
            let client = try RawHTTPConnection(port: server.port)
            for path in ["/videos/clear/master.m3u8", "/videos/clear/400k/seg0.ts"] {
                try client.request("GET", path)
                let response = try #require(try await client.readResponse())
                #expect(response.status == 200)
                #expect(response.headers["content-type"] == "text/html; charset=utf-8")
                #expect(String(decoding: response.body, as: UTF8.self) == HTTPFault.captivePortalPage)
            }
            let log = try await waitForLog(server, count: 2)
            #expect(log.map(\.faultRuleID) == ["portal", "portal"])
            #expect(log.map(\.status) == [200, 200])
        }
    }

    /// The license server issues nothing behind a portal: the request is recorded as
    /// rejected, and the app gets the page, not a license.
    @Test func theLicenseServerIssuesNothingBehindIt() async throws {
        try await withOrigin { server in
            server.setFaultRules(try FaultRuleSet(rules: [FaultRule(id: "portal", path: "/**", fault: .captivePortal)]))
            let keyID = try #require(server.store.catalog.keyID(for: "protected"))
            let client = try RawHTTPConnection(port: server.port)
            let request = LicenseRequest(assetID: "protected", keyID: keyID, nonce: "n-1", terms: .purchase)
            try client.request("POST", "/license", body: Array(try JSONEncoder().encode(request)))
            let response = try #require(try await client.readResponse())
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == HTTPFault.captivePortalPage)
            let records = server.licenseServer.records.map(\.kind)
            #expect(!records.contains { if case .licenseIssued = $0 { true } else { false } })
            #expect(records.contains { if case .requestRejected(_, _, _, 200, _) = $0 { true } else { false } })
        }
    }

    @Test func aProfileWindowBecomesARule() throws {
        let window = OriginFaultWindow(
            at: .seconds(5), duration: .seconds(10), path: "/videos/**/*.ts", fault: .status(code: 503, retryAfter: .seconds(2)))
        let rule = FaultRule(window: window, id: "profile-origin-0")
        #expect(rule == FaultRule(id: "profile-origin-0", path: "/videos/**/*.ts", fault: .status(503, retryAfter: .seconds(2))))
        #expect(rule.applies(method: "GET", path: "/videos/clear/400k/seg3.ts"))
        #expect(!rule.applies(method: "GET", path: "/videos/clear/master.m3u8"))
        let pairs: [(OriginFault, HTTPFault)] = [
            (.stall(afterBytes: 0, duration: nil), .stallBody(afterBytes: 0, duration: nil)),
            (.truncate(afterBytes: 10), .truncateBody(afterBytes: 10)),
            (.slowFirstByte(.seconds(1)), .addedTimeToFirstByte(.seconds(1))),
            (.malformedPlaylist, .malformedPlaylist),
            (.captivePortal, .captivePortal),
        ]
        for (profile, origin) in pairs { #expect(HTTPFault(profile) == origin) }
        // Every path: the default pattern of a window matches anything.
        #expect(FaultRule(window: OriginFaultWindow(at: .zero, duration: .seconds(1), fault: .captivePortal), id: "p")
            .applies(method: "POST", path: "/license"))
    }

    @Test func roundTripsAsJSON() throws {
        let rule = FaultRule(path: "/**", fault: .captivePortal)
        let json = String(decoding: try JSONEncoder().encode(rule.fault), as: UTF8.self)
        #expect(json == #"{"type":"captive_portal"}"#)
        #expect(try JSONDecoder().decode(FaultRule.self, from: JSONEncoder().encode(rule)) == rule)
    }
}
