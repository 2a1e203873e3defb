import BenchCore
import Crypto
import Foundation
import Synchronization

/// What the key store knows about an (asset, key id) pair.
public enum LicenseKeyLookup: Sendable, Hashable {
    /// The content key; must be 16 bytes (AES-128).
    case key([UInt8])
    /// No asset with that id.
    case unknownAsset
    /// The asset exists, but not that key id.
    case unknownKey
}

/// The license server's answer to one request: what the HTTP layer sends, plus the
/// typed answer and the events the request produced (also appended to `records`).
public struct LicenseOutcome: Sendable, Hashable {
    /// The typed answer.
    public enum Answer: Sendable, Hashable {
        case certificate(CertificateResponse)
        case license(License)
        case refused(LicenseErrorResponse)
    }

    /// HTTP status: 200, or the refusal's `LicenseErrorCode.httpStatus`.
    public var status: Int
    /// The JSON body (sorted keys, `Content-Type: application/json`).
    public var body: [UInt8]
    public var answer: Answer
    /// `requestReceived` then exactly one answer event.
    public var events: [LicenseEvent]
}

/// A FairPlay-like key server, modelled: certificate, license, renewal; records every
/// request and answer (those the HTTP layer refuses before asking it included, through
/// `recordRejection`); refuses everything while the harness says the app is in the
/// background (DESIGN.md §3).
///
/// Why a final class with a `Mutex` rather than a struct the driver locks: the HTTP
/// server calls it from several NIO event-loop threads at once and the harness flips
/// `setAppInBackground` from its control API, so the state (background flag, issued
/// licenses, records) is shared by nature. Keeping the lock inside makes every entry
/// point atomic (the flag read and the record of that request can't interleave with a
/// flip). The critical section does no I/O: the key lookup runs before the lock is
/// taken, and the HMAC and JSON encoding of one small license take microseconds.
public final class LicenseServer: Sendable {
    /// Largest accepted request body; bigger bodies are `bad_request`.
    public static let maximumBodyBytes = 64 * 1024
    /// Longest accepted rental or play duration: ten years.
    public static let maximumDurationSeconds: Int64 = 10 * 365 * 86_400

    private struct Issued {
        var assetID: String
        var keyID: String
        var terms: LicenseTerms
    }

    private struct State {
        var appInBackground = false
        var records: [LicenseEvent] = []
        /// Every license issued or renewed, by signature, so renewals can find it.
        var issued: [String: Issued] = [:]
    }

    /// Raw bytes rather than `SymmetricKey`, which swift-crypto does not mark `Sendable`;
    /// a key is rebuilt per signature (a copy of a few bytes).
    private let secretBytes: [UInt8]
    private var secret: SymmetricKey { SymmetricKey(data: secretBytes) }
    private let serverID: String
    private let clock: any TraceClock
    private let wallClock: @Sendable () -> Date
    private let keys: @Sendable (String, String) -> LicenseKeyLookup
    private let state = Mutex(State())

    /// Creates a server.
    /// - Parameters:
    ///   - secret: the HMAC key licenses are signed with; the engine verifies with it.
    ///   - serverID: named in the certificate.
    ///   - clock: stamps `records` (monotonic nanoseconds, shared with the trace).
    ///   - wallClock: `issued_at`/`expires_at` source; truncated to whole seconds.
    ///   - keys: the key store; called on the caller's thread, outside the lock. Must be
    ///     pure and quick.
    public init(
        secret: SymmetricKey, serverID: String = "deadzone-fixture", clock: any TraceClock,
        wallClock: @escaping @Sendable () -> Date = { Date() },
        keys: @escaping @Sendable (_ assetID: String, _ keyID: String) -> LicenseKeyLookup
    ) {
        self.secretBytes = secret.withUnsafeBytes { Array($0) }
        self.serverID = serverID
        self.clock = clock
        self.wallClock = wallClock
        self.keys = keys
    }

    /// A server over a fixed key table: asset id → key id → 16-byte key.
    public convenience init(
        secret: SymmetricKey, serverID: String = "deadzone-fixture", clock: any TraceClock,
        wallClock: @escaping @Sendable () -> Date = { Date() }, keyTable: [String: [String: [UInt8]]]
    ) {
        self.init(secret: secret, serverID: serverID, clock: clock, wallClock: wallClock) { asset, key in
            guard let assetKeys = keyTable[asset] else { return .unknownAsset }
            guard let bytes = assetKeys[key] else { return .unknownKey }
            return .key(bytes)
        }
    }

    /// A server over a fixed key table whose secret is given as raw bytes.
    public convenience init(
        secret: [UInt8], serverID: String = "deadzone-fixture", clock: any TraceClock,
        wallClock: @escaping @Sendable () -> Date = { Date() }, keyTable: [String: [String: [UInt8]]]
    ) {
        self.init(secret: SymmetricKey(data: secret), serverID: serverID, clock: clock, wallClock: wallClock, keyTable: keyTable)
    }

    /// Sets the harness's view of the app; while `true` every request is refused with
    /// `app_in_background`. Any thread.
    public func setAppInBackground(_ inBackground: Bool) {
        state.withLock { $0.appInBackground = inBackground }
    }

    /// Whether requests are currently refused as made in the background.
    public var appInBackground: Bool { state.withLock { $0.appInBackground } }

    /// Every event so far, in order. Any thread.
    public var records: [LicenseEvent] { state.withLock { $0.records } }

    /// The certificate this server answers with (same bytes on every run).
    public var certificate: CertificateResponse {
        let digest = SHA256.hash(data: Array("deadzone-certificate:\(serverID)".utf8))
        return CertificateResponse(serverID: serverID, certificate: Data(digest), protocolVersion: FixtureOrigin.protocolVersion)
    }

    /// `GET` on the certificate endpoint.
    public func handleCertificate() -> LicenseOutcome {
        let certificate = certificate
        return state.withLock { s in
            let received = event(.requestReceived(
                endpoint: .certificate, assetID: nil, keyID: nil, nonce: nil, terms: nil,
                appInBackground: s.appInBackground))
            if s.appInBackground { return refuse(&s, received, .certificate, .appInBackground) }
            return answer(&s, [received, event(.certificateServed)], .certificate(certificate), body: encode(certificate))
        }
    }

    /// `POST` on the license endpoint with `body` (a `LicenseRequest` as JSON).
    /// Never traps, whatever the bytes.
    public func handleLicense(body: [UInt8]) -> LicenseOutcome {
        let request = decode(LicenseRequest.self, body)
        let lookup = request.flatMap { $0.assetID.isEmpty ? nil : keys($0.assetID, $0.keyID) }
        let now = wallSeconds()
        return state.withLock { s in
            let received = event(.requestReceived(
                endpoint: .license, assetID: request?.assetID, keyID: request?.keyID, nonce: request?.nonce,
                terms: request?.terms.kind, appInBackground: s.appInBackground))
            if s.appInBackground { return refuse(&s, received, .license, .appInBackground) }
            guard let request, let lookup, !request.keyID.isEmpty, !request.nonce.isEmpty else {
                return refuse(&s, received, .license, .badRequest, "expected a JSON license request with non-empty asset_id, key_id and nonce")
            }
            if let problem = Self.problem(with: request.terms) {
                return refuse(&s, received, .license, .rentalTermsInvalid, problem)
            }
            let key: [UInt8]
            switch lookup {
            case .unknownAsset: return refuse(&s, received, .license, .unknownAsset, "no asset '\(request.assetID)'")
            case .unknownKey: return refuse(&s, received, .license, .unknownKey, "asset '\(request.assetID)' has no key '\(request.keyID)'")
            case .key(let bytes) where bytes.count != 16:
                return refuse(&s, received, .license, .keyUnavailable, "the key store holds a \(bytes.count)-byte key; AES-128 needs 16")
            case .key(let bytes): key = bytes
            }
            let license = LicenseSignature.signed(License(
                assetID: request.assetID, keyID: request.keyID, nonce: request.nonce, kind: request.terms.kind,
                contentKey: Data(key), issuedAt: now, expiresAt: request.terms.rentalDurationSeconds.map { now + $0 },
                playDurationSeconds: request.terms.playDurationSeconds, renewalOf: nil, signature: ""), secret: secret)
            s.issued[license.signature] = Issued(assetID: request.assetID, keyID: request.keyID, terms: request.terms)
            let issued = event(.licenseIssued(
                assetID: license.assetID, keyID: license.keyID, nonce: license.nonce, terms: license.kind,
                expiresAt: license.expiresAt, signature: license.signature))
            return answer(&s, [received, issued], .license(license), body: encode(license))
        }
    }

    /// `POST` on the renewal endpoint with `body` (a `RenewalRequest` as JSON). A renewal
    /// restarts the rental period from now, keeps the play duration, and carries no
    /// content key. Never traps, whatever the bytes.
    public func handleRenewal(body: [UInt8]) -> LicenseOutcome {
        let request = decode(RenewalRequest.self, body)
        let now = wallSeconds()
        return state.withLock { s in
            let previous = request.flatMap { s.issued[$0.previousSignature] }
            let received = event(.requestReceived(
                endpoint: .renewal, assetID: request?.assetID, keyID: request?.keyID, nonce: request?.nonce,
                terms: previous?.terms.kind, appInBackground: s.appInBackground))
            if s.appInBackground { return refuse(&s, received, .renewal, .appInBackground) }
            guard let request, !request.assetID.isEmpty, !request.keyID.isEmpty, !request.nonce.isEmpty,
                !request.previousSignature.isEmpty
            else {
                return refuse(&s, received, .renewal, .badRequest, "expected a JSON renewal request with non-empty asset_id, key_id, nonce and previous_signature")
            }
            guard let previous else {
                return refuse(&s, received, .renewal, .notRenewable, "no license with that signature was issued here")
            }
            guard previous.assetID == request.assetID, previous.keyID == request.keyID else {
                return refuse(&s, received, .renewal, .notRenewable, "the previous license is for another asset or key")
            }
            guard previous.terms.kind == .rental, let duration = previous.terms.rentalDurationSeconds else {
                return refuse(&s, received, .renewal, .notRenewable, "a purchase never expires and cannot be renewed")
            }
            let license = LicenseSignature.signed(License(
                assetID: request.assetID, keyID: request.keyID, nonce: request.nonce, kind: .rental, contentKey: nil,
                issuedAt: now, expiresAt: now + duration, playDurationSeconds: previous.terms.playDurationSeconds,
                renewalOf: request.previousSignature, signature: ""), secret: secret)
            s.issued[license.signature] = previous
            let renewed = event(.licenseRenewed(
                assetID: license.assetID, keyID: license.keyID, nonce: license.nonce, expiresAt: license.expiresAt,
                renewalOf: request.previousSignature, signature: license.signature))
            return answer(&s, [received, renewed], .license(license), body: encode(license))
        }
    }

    /// Records a request to a license endpoint that the HTTP layer answered itself, so
    /// that `records` holds every request made to the endpoints: a wrong method (405), a
    /// body over the origin's limit (413), a request that did not arrive in time (408), or a
    /// status fault rule. Appends `requestReceived` (with no request fields, and the
    /// background flag at this instant) then `requestRejected`, and returns them. The HTTP
    /// layer calls it on an event loop; any thread.
    @discardableResult
    public func recordRejection(
        endpoint: LicenseEndpoint, method: String, path: String, status: Int, reason: String
    ) -> [LicenseEvent] {
        state.withLock { s in
            let events = [
                event(.requestReceived(
                    endpoint: endpoint, assetID: nil, keyID: nil, nonce: nil, terms: nil,
                    appInBackground: s.appInBackground)),
                event(.requestRejected(endpoint: endpoint, method: method, path: path, status: status, reason: reason)),
            ]
            s.records += events
            return events
        }
    }

    // MARK: - Pieces

    /// Why `terms` cannot be honoured, or nil.
    static func problem(with terms: LicenseTerms) -> String? {
        let range = 1...maximumDurationSeconds
        switch terms.kind {
        case .purchase:
            if terms.rentalDurationSeconds != nil || terms.playDurationSeconds != nil {
                return "a purchase takes no rental or play duration"
            }
        case .rental:
            guard let rental = terms.rentalDurationSeconds else { return "a rental needs rental_duration_seconds" }
            if !range.contains(rental) { return "rental_duration_seconds must be 1 s to 10 years" }
            if let play = terms.playDurationSeconds, !range.contains(play) {
                return "play_duration_seconds must be 1 s to 10 years"
            }
        }
        return nil
    }

    private func wallSeconds() -> Int64 {
        let seconds = wallClock().timeIntervalSince1970.rounded(.down)
        return seconds.isFinite ? Int64(clamping: Int(exactly: seconds) ?? 0) : 0
    }

    private func event(_ kind: LicenseEvent.Kind) -> LicenseEvent {
        LicenseEvent(atNanoseconds: clock.nowNanoseconds, kind: kind)
    }

    private func decode<T: Decodable>(_ type: T.Type, _ body: [UInt8]) -> T? {
        guard body.count <= Self.maximumBodyBytes else { return nil }
        return try? JSONDecoder().decode(type, from: Data(body))
    }

    private func encode<T: Encodable>(_ value: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Our message types hold only strings, integers and Data: encoding cannot fail.
        return (try? Array(encoder.encode(value))) ?? Array("{}".utf8)
    }

    private func answer(
        _ s: inout State, _ events: [LicenseEvent], _ answer: LicenseOutcome.Answer, body: [UInt8]
    ) -> LicenseOutcome {
        s.records += events
        return LicenseOutcome(status: 200, body: body, answer: answer, events: events)
    }

    private func refuse(
        _ s: inout State, _ received: LicenseEvent, _ endpoint: LicenseEndpoint, _ code: LicenseErrorCode,
        _ message: String = "license exchange refused: the app is in the background"
    ) -> LicenseOutcome {
        let error = LicenseErrorResponse(code: code, message: message)
        let events = [received, event(.licenseRefused(endpoint: endpoint, code: code))]
        s.records += events
        return LicenseOutcome(status: code.httpStatus, body: encode(error), answer: .refused(error), events: events)
    }
}
