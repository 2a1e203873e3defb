import BenchCore
import FixtureOrigin
import Foundation
import Testing

/// The license endpoints over HTTP, with the catalog's own keys.
@Suite(.timeLimit(.minutes(2))) struct OriginServerLicenseTests {
    @Test func issuesAndRenewsALicenseForAProtectedVideo() async throws {
        try await withOrigin { server in
            let keyID = try #require(server.store.catalog.keyID(for: "protected"))
            let key = try #require(server.store.contentKey(for: "protected"))
            let client = try RawHTTPConnection(port: server.port)
            let terms = LicenseTerms(kind: .rental, rentalDurationSeconds: 3600, playDurationSeconds: 600)
            let request = LicenseRequest(assetID: "protected", keyID: keyID, nonce: "n-1", terms: terms)
            try client.request("POST", "/license", body: Array(try JSONEncoder().encode(request)))
            let issued = try #require(try await client.readResponse())
            #expect(issued.status == 200)
            let license = try JSONDecoder().decode(License.self, from: Data(issued.body))
            #expect(license.contentKey == Data(key))

            let renewal = RenewalRequest(
                assetID: "protected", keyID: keyID, nonce: "n-2", previousSignature: license.signature)
            try client.request("POST", "/license/renew", body: Array(try JSONEncoder().encode(renewal)))
            let renewed = try #require(try await client.readResponse())
            #expect(renewed.status == 200)
            #expect(try JSONDecoder().decode(License.self, from: Data(renewed.body)).renewalOf == license.signature)
        }
    }

    @Test func refusesAWrongKeyID() async throws {
        try await withOrigin { server in
            let client = try RawHTTPConnection(port: server.port)
            let request = LicenseRequest(assetID: "protected", keyID: "nope", nonce: "n", terms: .purchase)
            try client.request("POST", "/license", body: Array(try JSONEncoder().encode(request)))
            #expect(try await client.readResponse()?.status == 404)
        }
    }

    /// Every request to the license endpoints is in `records`, whether the license server
    /// answered it (a background refusal, an issued license, a bad request) or the HTTP
    /// layer did (a wrong method while in the background: 405; a body over the limit: 413).
    @Test func recordsEveryRequestIncludingTheOnesHTTPAnswers() async throws {
        try await withOrigin({ $0.maximumRequestBodyBytes = 1024 }) { server in
            let keyID = try #require(server.store.catalog.keyID(for: "protected"))
            let request = Array(try JSONEncoder().encode(
                LicenseRequest(assetID: "protected", keyID: keyID, nonce: "n-1", terms: .purchase)))
            server.licenseServer.setAppInBackground(true)
            let client = try RawHTTPConnection(port: server.port)
            try client.request("POST", "/license", body: request)
            #expect(try await client.readResponse()?.status == 403)
            try client.request("GET", "/license")
            #expect(try await client.readResponse()?.status == 405)
            try client.request("POST", "/license/renew", body: Array(repeating: 0x7B, count: 2048))
            #expect(try await client.readResponse()?.status == 413)  // and the connection closes

            server.licenseServer.setAppInBackground(false)
            let again = try RawHTTPConnection(port: server.port)
            try again.request("POST", "/license", body: request)
            #expect(try await again.readResponse()?.status == 200)
            try again.request("POST", "/license", body: Array("not json".utf8))
            #expect(try await again.readResponse()?.status == 400)

            let records = server.licenseServer.records
            let received = records.compactMap { event -> Bool? in
                guard case let .requestReceived(_, _, _, _, _, background) = event.kind else { return nil }
                return background
            }
            #expect(received == [true, true, true, false, false])  // five requests, each recorded once
            let answers = records.compactMap { event -> String? in
                switch event.kind {
                case .requestReceived: nil
                case let .licenseRefused(endpoint, code): "refused \(endpoint) \(code.rawValue)"
                case let .licenseIssued(asset, _, nonce, _, _, _): "issued \(asset) \(nonce)"
                case let .requestRejected(endpoint, method, path, status, _): "rejected \(endpoint) \(method) \(path) \(status)"
                default: "other"
                }
            }
            #expect(answers == [
                "refused license app_in_background",
                "rejected license GET /license 405",
                "rejected renewal POST /license/renew 413",
                "issued protected n-1",
                "refused license bad_request",
            ])
        }
    }

    /// A status fault on the license endpoint answers instead of the license server, which
    /// issues nothing and records the request as rejected by that rule.
    @Test func aStatusFaultOnTheLicenseEndpointIssuesNothing() async throws {
        try await withOrigin { server in
            server.setFaultRules(try FaultRuleSet(rules: [
                FaultRule(id: "down", path: "/license", fault: .status(503, retryAfter: .seconds(1)), count: 1)
            ]))
            let keyID = try #require(server.store.catalog.keyID(for: "protected"))
            let request = Array(try JSONEncoder().encode(
                LicenseRequest(assetID: "protected", keyID: keyID, nonce: "n", terms: .purchase)))
            let client = try RawHTTPConnection(port: server.port)
            try client.request("POST", "/license", body: request)
            #expect(try await client.readResponse()?.status == 503)
            try client.request("POST", "/license", body: request)
            #expect(try await client.readResponse()?.status == 200)
            let kinds = server.licenseServer.records.map { event -> String in
                switch event.kind {
                case .requestReceived: "received"
                case let .requestRejected(_, _, _, status, reason): "rejected \(status) \(reason)"
                case .licenseIssued: "issued"
                default: "other"
                }
            }
            #expect(kinds == ["received", "rejected 503 fault rule 'down'", "received", "issued"])
        }
    }

    @Test func refusesWhileTheHarnessSaysBackground() async throws {
        try await withOrigin { server in
            server.licenseServer.setAppInBackground(true)
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", "/license/certificate")
            let response = try #require(try await client.readResponse())
            #expect(response.status == 403)
            #expect(String(decoding: response.body, as: UTF8.self).contains("app_in_background"))
        }
    }
}
