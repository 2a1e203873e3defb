import BenchCore
import FixtureOrigin
import Foundation
import OfflineDownloads
import Testing

/// The engine's license client against the real fixture license server.
@Suite(.timeLimit(.minutes(2))) struct LicenseClientTests {
    static let secret = Array("deadzone-license-secret".utf8)

    private func endpoints(_ server: OriginServer) -> LicenseEndpoints {
        LicenseEndpoints(
            certificate: server.url("/license/certificate"), license: server.url("/license"),
            renewal: server.url("/license/renew"))
    }

    private func keyID(_ server: OriginServer) throws -> String {
        try #require(server.store.catalog.keyID(for: "protected"))
    }

    @Test func acquiresAVerifiedLicenseWithTheContentKey() async throws {
        try await withOriginAndTransport { server, transport in
            let client = LicenseClient(transport: transport, secret: Self.secret)
            let license = try await client.acquire(
                assetID: "protected", keyID: try keyID(server),
                terms: LicenseTerms(kind: .rental, rentalDurationSeconds: 3600, playDurationSeconds: 600),
                at: endpoints(server), via: nil, nonce: "n-1")
            #expect(license.contentKey.map(Array.init) == server.store.contentKey(for: "protected"))
            #expect(license.nonce == "n-1" && license.kind == .rental && license.playDurationSeconds == 600)
            #expect(client.isAuthentic(license))
            var forged = license
            forged.expiresAt = (forged.expiresAt ?? 0) + 86_400
            #expect(!client.isAuthentic(forged))
        }
    }

    @Test func aLicenseSignedWithAnotherSecretIsRefused() async throws {
        try await withOriginAndTransport { server, transport in
            let client = LicenseClient(transport: transport, secret: Array("not the secret".utf8))
            await #expect(throws: LicenseFailure.invalidLicense("bad signature")) {
                try await client.acquire(
                    assetID: "protected", keyID: try keyID(server), terms: .purchase, at: endpoints(server), via: nil)
            }
        }
    }

    @Test func theBackgroundRefusalIsItsOwnFailure() async throws {
        try await withOriginAndTransport { server, transport in
            server.licenseServer.setAppInBackground(true)
            let client = LicenseClient(transport: transport, secret: Self.secret)
            let error = await #expect(throws: LicenseFailure.self) {
                try await client.acquire(
                    assetID: "protected", keyID: try keyID(server), terms: .purchase, at: endpoints(server), via: nil)
            }
            #expect(error == .appInBackground && error?.isPermanent == false)
        }
    }

    /// Sent to the background while its certificate was on its way, the app sends no
    /// license request: the guides allow none in the background (an exchange half done is
    /// taken up in the foreground).
    @Test func noLicenseRequestFollowsACertificateThatArrivedInTheBackground() async throws {
        try await withOriginAndTransport { server, transport in
            let client = LicenseClient(transport: transport, secret: Self.secret)
            let error = await #expect(throws: LicenseFailure.self) {
                try await client.acquire(
                    assetID: "protected", keyID: try keyID(server), terms: .purchase, at: endpoints(server), via: nil,
                    stillForeground: { false })
            }
            #expect(error == .appInBackground)
            let paths = server.requestLog.map(\.path)
            #expect(paths == ["/license/certificate"], "only the certificate was asked for: \(paths)")
        }
    }

    @Test func unknownAssetsAreRefusedForGood() async throws {
        try await withOriginAndTransport { server, transport in
            let client = LicenseClient(transport: transport, secret: Self.secret)
            let error = await #expect(throws: LicenseFailure.self) {
                try await client.acquire(assetID: "nope", keyID: "k", terms: .purchase, at: endpoints(server), via: nil)
            }
            guard case .refused(let code, _) = error else { Issue.record("expected refused, got \(String(describing: error))"); return }
            #expect(code == "unknown_asset" && error?.isPermanent == true)
        }
    }

    @Test func renewalExtendsTheLicenseAndKeepsItsKey() async throws {
        try await withOriginAndTransport { server, transport in
            let client = LicenseClient(transport: transport, secret: Self.secret)
            let license = try await client.acquire(
                assetID: "protected", keyID: try keyID(server),
                terms: LicenseTerms(kind: .rental, rentalDurationSeconds: 60), at: endpoints(server), via: nil)
            let renewed = try await client.renew(license, at: endpoints(server), via: nil)
            #expect(renewed.renewalOf == license.signature && renewed.contentKey == license.contentKey)
            #expect((renewed.expiresAt ?? 0) >= (license.expiresAt ?? 0))
        }
    }

    @Test func timelinesFollowPurchaseRentalAndDualExpiry() {
        let issued = Date(timeIntervalSince1970: 1_000_000)
        func license(_ kind: LicenseKind, expires: Int64?, play: Int64?) -> License {
            License(
                assetID: "a", keyID: "k", nonce: "n", kind: kind, contentKey: nil, issuedAt: 1_000_000, expiresAt: expires,
                playDurationSeconds: play, renewalOf: nil, signature: "")
        }
        #expect(LicenseTimeline(license(.purchase, expires: nil, play: nil)).expiration == .distantFuture)
        let rental = LicenseTimeline(license(.rental, expires: 1_003_600, play: 600))
        #expect(rental.expiration == issued.addingTimeInterval(3600))
        #expect(rental.isValid(at: issued.addingTimeInterval(3599)) && !rental.isValid(at: issued.addingTimeInterval(3600)))
        // Played 100 s after issue: the 600 s play window ends before the rental does.
        var played = rental
        played.firstPlayedAt = issued.addingTimeInterval(100)
        #expect(played.expiration == issued.addingTimeInterval(700))
        // Played late: the rental's own expiry comes first.
        played.firstPlayedAt = issued.addingTimeInterval(3500)
        #expect(played.expiration == issued.addingTimeInterval(3600))
    }

    @Test func automaticRenewalIsDueALeadBeforeExpiryAndNeverInALoop() {
        let issued = Date(timeIntervalSince1970: 1_000_000)
        func rental(expires: Int64, play: Int64? = nil) -> LicenseTimeline {
            LicenseTimeline(License(
                assetID: "a", keyID: "k", nonce: "n", kind: .rental, contentKey: nil, issuedAt: 1_000_000, expiresAt: expires,
                playDurationSeconds: play, renewalOf: nil, signature: ""))
        }
        // An hour's rental with a 5-minute lead: due 5 minutes before the end.
        #expect(rental(expires: 1_003_600).renewalDue(lead: .seconds(300)) == issued.addingTimeInterval(3300))
        // A lead longer than the rental: due at half its life, so a renewal never
        // lands inside the next lead at once.
        #expect(rental(expires: 1_000_004).renewalDue(lead: .seconds(10)) == issued.addingTimeInterval(2))
        // Dual expiry: playback brings the end, and so the renewal, forward.
        var played = rental(expires: 1_003_600, play: 600)
        played.firstPlayedAt = issued.addingTimeInterval(100)
        #expect(played.renewalDue(lead: .seconds(60)) == issued.addingTimeInterval(640))
        // A purchase never expires: no renewal.
        let purchase = LicenseTimeline(License(
            assetID: "a", keyID: "k", nonce: "n", kind: .purchase, contentKey: nil, issuedAt: 1_000_000, expiresAt: nil,
            playDurationSeconds: nil, renewalOf: nil, signature: ""))
        #expect(purchase.renewalDue(lead: .seconds(60)) == nil)
    }
}
