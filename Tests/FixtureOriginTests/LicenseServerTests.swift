import Synchronization
import BenchCore
import Foundation
import Testing
@testable import FixtureOrigin

/// Drives `LicenseServer` like the HTTP layer would: bytes in, status and bytes out,
/// with a manual trace clock and a fixed wall clock.
struct LicenseServerTests {
    static let secret = Array("fixture-secret-for-tests".utf8)
    static let key: [UInt8] = Array(0..<16)
    /// 2026-01-01T00:00:00Z, plus a fraction the server must drop.
    static let now = Date(timeIntervalSince1970: 1_767_225_600.75)

    let clock = ManualClock(startingAt: 1_000)
    let server: LicenseServer

    init() {
        server = LicenseServer(
            secret: Self.secret, clock: clock, wallClock: { Self.now },
            keyTable: ["v1": ["k1": Self.key], "v2": ["k2": Array(repeating: 7, count: 16)], "bad": ["k": [1, 2, 3]]])
    }

    static func body<T: Encodable>(_ value: T) -> [UInt8] {
        Array(try! JSONEncoder().encode(value))
    }

    static func request(_ terms: LicenseTerms, asset: String = "v1", key: String = "k1", nonce: String = "n-1") -> [UInt8] {
        body(LicenseRequest(assetID: asset, keyID: key, nonce: nonce, terms: terms))
    }

    /// The license in a 200 answer, read back from the wire bytes as a client would.
    static func license(_ outcome: LicenseOutcome) throws -> License {
        #expect(outcome.status == 200)
        return try JSONDecoder().decode(License.self, from: Data(outcome.body))
    }

    static func error(_ outcome: LicenseOutcome) throws -> LicenseErrorResponse {
        try JSONDecoder().decode(LicenseErrorResponse.self, from: Data(outcome.body))
    }

    @Test func purchaseHasKeyAndNoExpiry() throws {
        let license = try Self.license(server.handleLicense(body: Self.request(.purchase)))
        #expect(license.kind == .purchase)
        #expect(license.contentKey == Data(Self.key))
        #expect(license.issuedAt == 1_767_225_600)  // whole seconds
        #expect(license.expiresAt == nil && license.expirationDate == nil)
        #expect(license.playDurationSeconds == nil && license.renewalOf == nil)
        #expect(LicenseSignature.verify(license, secret: Self.secret))
        // Absent optionals are omitted, not null.
        let json = String(decoding: server.handleLicense(body: Self.request(.purchase)).body, as: UTF8.self)
        #expect(!json.contains("expires_at") && !json.contains("null"))
        #expect(json.contains("\"content_key\":\"AAECAwQFBgcICQoLDA0ODw==\""))
    }

    @Test func rentalExpiresAfterItsDurationWithDualExpiry() throws {
        let terms = LicenseTerms(kind: .rental, rentalDurationSeconds: 172_800, playDurationSeconds: 86_400)
        let license = try Self.license(server.handleLicense(body: Self.request(terms)))
        #expect(license.kind == .rental)
        #expect(license.expiresAt == Int64(1_767_225_600 + 172_800))
        #expect(license.playDurationSeconds == 86_400)
        #expect(license.nonce == "n-1" && license.assetID == "v1" && license.keyID == "k1")
        let json = String(decoding: server.handleLicense(body: Self.request(terms)).body, as: UTF8.self)
        #expect(json.contains("\"expires_at\":1767398400") && json.contains("\"play_duration_seconds\":86400"))
    }

    @Test func tamperingWithAnyFieldBreaksTheSignature() throws {
        let terms = LicenseTerms(kind: .rental, rentalDurationSeconds: 3_600, playDurationSeconds: 600)
        let license = try Self.license(server.handleLicense(body: Self.request(terms)))
        #expect(LicenseSignature.verify(license, secret: Self.secret))
        #expect(!LicenseSignature.verify(license, secret: Array("another secret".utf8)))
        let tampers: [(String, (inout License) -> Void)] = [
            ("asset_id", { $0.assetID = "v2" }), ("key_id", { $0.keyID = "k2" }), ("nonce", { $0.nonce += "x" }),
            ("kind", { $0.kind = .purchase }), ("content_key", { $0.contentKey = Data(repeating: 0, count: 16) }),
            ("content_key removed", { $0.contentKey = nil }), ("issued_at", { $0.issuedAt += 1 }),
            ("expires_at", { $0.expiresAt! += 1 }), ("expires_at removed", { $0.expiresAt = nil }),
            ("play_duration", { $0.playDurationSeconds = 601 }), ("play removed", { $0.playDurationSeconds = nil }),
            ("renewal_of added", { $0.renewalOf = "x" }), ("signature", { $0.signature = "AAAA" }),
            ("signature not base64", { $0.signature = "%%%" }),
        ]
        for (name, tamper) in tampers {
            var copy = license
            tamper(&copy)
            #expect(!LicenseSignature.verify(copy, secret: Self.secret), "tampered \(name) still verifies")
        }
    }

    @Test func canonicalEncodingSeparatesFields() {
        // Moving a character between adjacent fields must change the signed bytes.
        let a = License(assetID: "ab", keyID: "c", nonce: "n", kind: .purchase, contentKey: nil, issuedAt: 1,
                        expiresAt: nil, playDurationSeconds: nil, renewalOf: nil, signature: "")
        var b = a
        (b.assetID, b.keyID) = ("a", "bc")
        #expect(LicenseSignature.canonicalBytes(of: a) != LicenseSignature.canonicalBytes(of: b))
    }

    @Test func renewalExtendsTheExpiryAndCarriesNoKey() throws {
        let clockNow = LockedDate(Self.now)
        let server = LicenseServer(secret: Self.secret, clock: clock, wallClock: { clockNow.value },
                                   keyTable: ["v1": ["k1": Self.key]])
        let terms = LicenseTerms(kind: .rental, rentalDurationSeconds: 3_600, playDurationSeconds: 600)
        let first = try Self.license(server.handleLicense(body: Self.request(terms)))
        // An hour and a half later the rental has lapsed; the client renews.
        clockNow.value = Self.now.addingTimeInterval(5_400)
        let renewal = RenewalRequest(assetID: "v1", keyID: "k1", nonce: "n-2", previousSignature: first.signature)
        let outcome = server.handleRenewal(body: Self.body(renewal))
        let renewed = try Self.license(outcome)
        #expect(renewed.contentKey == nil)
        #expect(!String(decoding: outcome.body, as: UTF8.self).contains("content_key"))
        #expect(renewed.issuedAt == first.issuedAt + 5_400)
        #expect(renewed.expiresAt == first.expiresAt! + 5_400)
        #expect(renewed.playDurationSeconds == 600)
        #expect(renewed.renewalOf == first.signature && renewed.nonce == "n-2")
        #expect(LicenseSignature.verify(renewed, secret: Self.secret))
        // A renewal can itself be renewed.
        let again = RenewalRequest(assetID: "v1", keyID: "k1", nonce: "n-3", previousSignature: renewed.signature)
        #expect(server.handleRenewal(body: Self.body(again)).status == 200)
        guard case .licenseRenewed(_, _, _, let expiresAt, let of, _) = outcome.events.last?.kind else {
            Issue.record("expected licenseRenewed, got \(outcome.events)")
            return
        }
        #expect(expiresAt == renewed.expiresAt && of == first.signature)
    }

    @Test func purchasesAndStrangersAreNotRenewable() throws {
        let purchase = try Self.license(server.handleLicense(body: Self.request(.purchase)))
        let cases = [
            RenewalRequest(assetID: "v1", keyID: "k1", nonce: "n", previousSignature: purchase.signature),
            RenewalRequest(assetID: "v1", keyID: "k1", nonce: "n", previousSignature: "bm90IGlzc3VlZA=="),
        ]
        for request in cases {
            let outcome = server.handleRenewal(body: Self.body(request))
            #expect(outcome.status == 409)
            #expect(try Self.error(outcome).code == .notRenewable)
        }
    }

    @Test func renewalMustNameTheSameAssetAndKey() throws {
        let terms = LicenseTerms(kind: .rental, rentalDurationSeconds: 60)
        let first = try Self.license(server.handleLicense(body: Self.request(terms)))
        let wrong = RenewalRequest(assetID: "v2", keyID: "k2", nonce: "n", previousSignature: first.signature)
        #expect(try Self.error(server.handleRenewal(body: Self.body(wrong))).code == .notRenewable)
        let empty = RenewalRequest(assetID: "v1", keyID: "k1", nonce: "", previousSignature: first.signature)
        #expect(try Self.error(server.handleRenewal(body: Self.body(empty))).code == .badRequest)
    }

    @Test func concurrentCallersAreSerialised() {
        // As from several event loops at once, with the harness flipping the flag.
        DispatchQueue.concurrentPerform(iterations: 400) { i in
            if i % 50 == 0 { server.setAppInBackground(i % 100 == 0) }
            _ = server.handleLicense(body: Self.request(.purchase, nonce: "n\(i)"))
        }
        let records = server.records
        #expect(records.count == 800)
        // Every request is immediately followed by its own answer.
        for pair in stride(from: 0, to: records.count, by: 2) {
            guard case .requestReceived(_, _, _, _, _, let background) = records[pair].kind else {
                Issue.record("record \(pair) is \(records[pair])")
                continue
            }
            let refused = records[pair + 1].kind == .licenseRefused(endpoint: .license, code: .appInBackground)
            #expect(background == refused)
        }
    }

    @Test func backgroundRefusalIsDistinctAndRecorded() throws {
        server.setAppInBackground(true)
        clock.advance(by: .seconds(2))
        let outcome = server.handleLicense(body: Self.request(.purchase, nonce: "bg"))
        #expect(outcome.status == 403)
        #expect(try Self.error(outcome).code == .appInBackground)
        // No other code shares its status.
        #expect(LicenseErrorCode.allCases.filter { $0.httpStatus == 403 } == [.appInBackground])
        #expect(outcome.events == [
            LicenseEvent(atNanoseconds: 2_000_001_000, kind: .requestReceived(
                endpoint: .license, assetID: "v1", keyID: "k1", nonce: "bg", terms: .purchase, appInBackground: true)),
            LicenseEvent(atNanoseconds: 2_000_001_000, kind: .licenseRefused(endpoint: .license, code: .appInBackground)),
        ])
        // Background wins even over garbage, and covers the certificate and renewals too.
        #expect(server.handleLicense(body: [0xFF]).status == 403)
        #expect(server.handleCertificate().status == 403)
        #expect(server.handleRenewal(body: Array("{}".utf8)).status == 403)
        // Back in the foreground, the same request succeeds.
        server.setAppInBackground(false)
        #expect(server.handleLicense(body: Self.request(.purchase, nonce: "fg")).status == 200)
        #expect(server.records.count == 10)
        #expect(server.records.filter { if case .licenseRefused(_, .appInBackground) = $0.kind { true } else { false } }.count == 4)
    }

    @Test func errorsHaveTheirOwnCodes() throws {
        let cases: [([UInt8], LicenseErrorCode, Int)] = [
            (Self.request(.purchase, asset: "nope"), .unknownAsset, 404),
            (Self.request(.purchase, key: "nope"), .unknownKey, 404),
            (Self.request(.purchase, asset: "bad", key: "k"), .keyUnavailable, 500),
            (Self.request(.purchase, nonce: ""), .badRequest, 400),
            (Self.request(LicenseTerms(kind: .rental)), .rentalTermsInvalid, 422),
            (Self.request(LicenseTerms(kind: .rental, rentalDurationSeconds: 0)), .rentalTermsInvalid, 422),
            (Self.request(LicenseTerms(kind: .rental, rentalDurationSeconds: 60, playDurationSeconds: -1)), .rentalTermsInvalid, 422),
            (Self.request(LicenseTerms(kind: .purchase, rentalDurationSeconds: 60)), .rentalTermsInvalid, 422),
            (Array(#"{"asset_id":"v1","key_id":"k1","nonce":"n","terms":{"kind":"lease"}}"#.utf8), .badRequest, 400),
        ]
        for (body, code, status) in cases {
            let outcome = server.handleLicense(body: body)
            #expect(outcome.status == status)
            #expect(try Self.error(outcome).code == code)
            #expect(outcome.events.last?.kind == .licenseRefused(endpoint: .license, code: code))
        }
        #expect(Set(LicenseErrorCode.allCases.map(\.rawValue)).count == LicenseErrorCode.allCases.count)
    }

    @Test func garbageBodiesAreBadRequests() throws {
        var random = SeededGenerator(seed: 7)
        let valid = Self.request(LicenseTerms(kind: .rental, rentalDurationSeconds: 60))
        for round in 0..<500 {
            var body: [UInt8]
            if round % 2 == 0 {
                body = (0..<Int(random.next() % 200)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            } else {  // a valid request with a few bytes flipped or cut
                body = valid
                for _ in 0...(random.next() % 4) {
                    body[Int(random.next() % UInt64(body.count))] = UInt8(truncatingIfNeeded: random.next())
                }
                body = Array(body.prefix(Int(random.next() % UInt64(body.count + 1))))
            }
            for outcome in [server.handleLicense(body: body), server.handleRenewal(body: body)] where outcome.status != 200 {
                #expect(outcome.status >= 400 && outcome.status != 403)
                _ = try Self.error(outcome)  // always a well-formed error body
            }
        }
        let huge = Array(repeating: UInt8(ascii: " "), count: LicenseServer.maximumBodyBytes + 1)
        #expect(try Self.error(server.handleLicense(body: huge)).code == .badRequest)
        #expect(try Self.error(server.handleLicense(body: [])).code == .badRequest)
    }

    @Test func certificateIsDeterministic() throws {
        let outcome = server.handleCertificate()
        #expect(outcome.status == 200)
        let certificate = try JSONDecoder().decode(CertificateResponse.self, from: Data(outcome.body))
        #expect(certificate.serverID == "deadzone-fixture" && certificate.protocolVersion == FixtureOrigin.protocolVersion)
        #expect(certificate.certificate.count == 32)
        #expect(certificate == server.certificate)
        let json = String(decoding: outcome.body, as: UTF8.self)
        #expect(json.contains("\"server_id\"") && json.contains("\"protocol_version\""))
    }

    @Test func recordsRoundTripAsJSON() throws {
        _ = server.handleCertificate()
        _ = server.handleLicense(body: Self.request(LicenseTerms(kind: .rental, rentalDurationSeconds: 60)))
        _ = server.handleLicense(body: [1, 2, 3])
        server.setAppInBackground(true)
        _ = server.handleRenewal(body: [])
        let records = server.records
        #expect(records.count == 8)
        let data = try JSONEncoder().encode(records)
        #expect(try JSONDecoder().decode([LicenseEvent].self, from: data) == records)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"event\":\"license_issued\"") && text.contains("\"app_in_background\":true"))
    }
}

/// A wall clock a test can move; the server reads it from its own calls.
final class LockedDate: Sendable {
    private let date: Mutex<Date>
    init(_ date: Date) { self.date = Mutex(date) }
    var value: Date {
        get { date.withLock { $0 } }
        set { date.withLock { $0 = newValue } }
    }
}
