import BenchCore
import FixtureOrigin
import Foundation
import Testing

/// The license endpoints over HTTP, with the catalog's own keys.
@Suite struct OriginServerLicenseTests {
    @Test func issuesAndRenewsALicenseForAProtectedVideo() async throws {
        try await withOrigin { server in
            let keyID = try #require(server.store.catalog.keyID(for: "protected"))
            let key = try #require(server.store.contentKey(for: "protected"))
            let client = try RawHTTPConnection(port: server.port)
            let terms = LicenseTerms(kind: .rental, rentalDurationSeconds: 3600, playDurationSeconds: 600)
            let request = LicenseRequest(assetID: "protected", keyID: keyID, nonce: "n-1", terms: terms)
            try client.request("POST", "/license", body: Array(try JSONEncoder().encode(request)))
            let issued = try #require(try client.readResponse())
            #expect(issued.status == 200)
            let license = try JSONDecoder().decode(License.self, from: Data(issued.body))
            #expect(license.contentKey == Data(key))

            let renewal = RenewalRequest(
                assetID: "protected", keyID: keyID, nonce: "n-2", previousSignature: license.signature)
            try client.request("POST", "/license/renew", body: Array(try JSONEncoder().encode(renewal)))
            let renewed = try #require(try client.readResponse())
            #expect(renewed.status == 200)
            #expect(try JSONDecoder().decode(License.self, from: Data(renewed.body)).renewalOf == license.signature)
        }
    }

    @Test func refusesAWrongKeyID() async throws {
        try await withOrigin { server in
            let client = try RawHTTPConnection(port: server.port)
            let request = LicenseRequest(assetID: "protected", keyID: "nope", nonce: "n", terms: .purchase)
            try client.request("POST", "/license", body: Array(try JSONEncoder().encode(request)))
            #expect(try client.readResponse()?.status == 404)
        }
    }

    @Test func refusesWhileTheHarnessSaysBackground() async throws {
        try await withOrigin { server in
            server.licenseServer.setAppInBackground(true)
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", "/license/certificate")
            let response = try #require(try client.readResponse())
            #expect(response.status == 403)
            #expect(String(decoding: response.body, as: UTF8.self).contains("app_in_background"))
        }
    }
}
