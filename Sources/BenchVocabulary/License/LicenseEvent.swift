import BenchCore
/// Which license-server endpoint a request reached.
public enum LicenseEndpoint: String, Codable, Sendable, Hashable {
    case certificate, license, renewal
}

/// One thing that happened at the license server, stamped with the `TraceClock`
/// reading (nanoseconds) at which it happened. Every request produces a
/// `requestReceived` followed by exactly one answer event.
///
/// JSON is flat, one object per event, with an `event` discriminator and only the
/// fields that event has, e.g.
/// `{"at_ns": 5000, "event": "request_received", "endpoint": "license",
///   "asset_id": "v1", "key_id": "k1", "nonce": "n", "kind": "rental", "app_in_background": true}`.
public struct LicenseEvent: Codable, Sendable, Hashable {
    /// `TraceClock.nowNanoseconds` when the event happened.
    public var atNanoseconds: UInt64
    public var kind: Kind

    public init(atNanoseconds: UInt64, kind: Kind) {
        self.atNanoseconds = atNanoseconds
        self.kind = kind
    }

    /// What happened.
    public enum Kind: Sendable, Hashable {
        /// A request arrived. Fields the body did not yield (garbage) are `nil`;
        /// `appInBackground` is the harness flag at that instant.
        case requestReceived(
            endpoint: LicenseEndpoint, assetID: String?, keyID: String?, nonce: String?,
            terms: LicenseKind?, appInBackground: Bool)
        /// The certificate was sent.
        case certificateServed
        /// A license carrying a content key was sent.
        case licenseIssued(
            assetID: String, keyID: String, nonce: String, terms: LicenseKind, expiresAt: Int64?,
            signature: String)
        /// A renewal (no content key) was sent.
        case licenseRenewed(
            assetID: String, keyID: String, nonce: String, expiresAt: Int64?, renewalOf: String,
            signature: String)
        /// The request was refused with `code` (HTTP `code.httpStatus`).
        case licenseRefused(endpoint: LicenseEndpoint, code: LicenseErrorCode)
        /// The HTTP layer answered the request itself, without asking the license server:
        /// a wrong method (405, or 501 for one it does not implement), a body too large
        /// (413), a request that did not arrive in time (408), or a status fault rule.
        /// `reason` says which.
        case requestRejected(endpoint: LicenseEndpoint, method: String, path: String, status: Int, reason: String)
    }

    private enum Name: String, Codable {
        case requestReceived = "request_received", certificateServed = "certificate_served"
        case licenseIssued = "license_issued", licenseRenewed = "license_renewed"
        case licenseRefused = "license_refused", requestRejected = "request_rejected"
    }

    /// The flat JSON form: every field optional except the time and the name.
    private struct Wire: Codable {
        var at_ns: UInt64
        var event: Name
        var endpoint: LicenseEndpoint?
        var asset_id: String?
        var key_id: String?
        var nonce: String?
        var kind: LicenseKind?
        var app_in_background: Bool?
        var expires_at: Int64?
        var renewal_of: String?
        var signature: String?
        var code: LicenseErrorCode?
        var method: String?
        var path: String?
        var status: Int?
        var reason: String?
    }

    public func encode(to encoder: any Encoder) throws {
        var w = Wire(at_ns: atNanoseconds, event: .certificateServed)
        switch kind {
        case let .requestReceived(endpoint, assetID, keyID, nonce, terms, background):
            w.event = .requestReceived
            (w.endpoint, w.asset_id, w.key_id, w.nonce, w.kind, w.app_in_background) =
                (endpoint, assetID, keyID, nonce, terms, background)
        case .certificateServed:
            break
        case let .licenseIssued(assetID, keyID, nonce, terms, expiresAt, signature):
            w.event = .licenseIssued
            (w.asset_id, w.key_id, w.nonce, w.kind, w.expires_at, w.signature) =
                (assetID, keyID, nonce, terms, expiresAt, signature)
        case let .licenseRenewed(assetID, keyID, nonce, expiresAt, renewalOf, signature):
            w.event = .licenseRenewed
            (w.asset_id, w.key_id, w.nonce, w.expires_at, w.renewal_of, w.signature) =
                (assetID, keyID, nonce, expiresAt, renewalOf, signature)
        case let .licenseRefused(endpoint, code):
            w.event = .licenseRefused
            (w.endpoint, w.code) = (endpoint, code)
        case let .requestRejected(endpoint, method, path, status, reason):
            w.event = .requestRejected
            (w.endpoint, w.method, w.path, w.status, w.reason) = (endpoint, method, path, status, reason)
        }
        try w.encode(to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        let w = try Wire(from: decoder)
        func need<T>(_ value: T?, _ field: String) throws -> T {
            guard let value else {
                throw DecodingError.dataCorrupted(.init(
                    codingPath: decoder.codingPath, debugDescription: "\(w.event.rawValue) needs \(field)"))
            }
            return value
        }
        atNanoseconds = w.at_ns
        switch w.event {
        case .requestReceived:
            kind = .requestReceived(
                endpoint: try need(w.endpoint, "endpoint"), assetID: w.asset_id, keyID: w.key_id,
                nonce: w.nonce, terms: w.kind, appInBackground: try need(w.app_in_background, "app_in_background"))
        case .certificateServed:
            kind = .certificateServed
        case .licenseIssued:
            kind = .licenseIssued(
                assetID: try need(w.asset_id, "asset_id"), keyID: try need(w.key_id, "key_id"),
                nonce: try need(w.nonce, "nonce"), terms: try need(w.kind, "kind"), expiresAt: w.expires_at,
                signature: try need(w.signature, "signature"))
        case .licenseRenewed:
            kind = .licenseRenewed(
                assetID: try need(w.asset_id, "asset_id"), keyID: try need(w.key_id, "key_id"),
                nonce: try need(w.nonce, "nonce"), expiresAt: w.expires_at,
                renewalOf: try need(w.renewal_of, "renewal_of"), signature: try need(w.signature, "signature"))
        case .licenseRefused:
            kind = .licenseRefused(endpoint: try need(w.endpoint, "endpoint"), code: try need(w.code, "code"))
        case .requestRejected:
            kind = .requestRejected(
                endpoint: try need(w.endpoint, "endpoint"), method: try need(w.method, "method"),
                path: try need(w.path, "path"), status: try need(w.status, "status"), reason: try need(w.reason, "reason"))
        }
    }
}
