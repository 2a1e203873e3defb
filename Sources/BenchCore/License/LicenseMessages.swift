import Foundation

// Wire messages of the license protocol, shared by the fixture license server
// (FixtureOrigin, DESIGN.md §3) and the engine's license client (OfflineDownloads). Every message is JSON
// with snake_case keys (spelled out in each type's `CodingKeys`, so no encoder
// configuration is needed). Times are whole Unix seconds (`Int64`), never floating
// point, so that a license survives a JSON round trip bit for bit and its signature
// still verifies. All types are `Sendable` values, safe to pass between threads.

/// Whether a license is bought outright or rented for a limited time.
public enum LicenseKind: String, Codable, Sendable, Hashable, CaseIterable {
    /// Never expires: `expires_at` is absent.
    case purchase
    /// Expires `rental_duration_seconds` after it is issued.
    case rental
}

/// The answer to `GET` on the certificate endpoint: the server's public "certificate".
///
/// Modelled on FairPlay's application certificate: clients fetch it before building a
/// license request. Here it is an opaque, deterministic byte string derived from the
/// server id, so it never changes between runs.
public struct CertificateResponse: Codable, Sendable, Hashable {
    /// The identifier of the license server, e.g. `deadzone-fixture`.
    public var serverID: String
    /// The certificate bytes, base64 in JSON.
    public var certificate: Data
    /// The license protocol version (`LicenseCanonicalEncoding.version`).
    public var protocolVersion: Int

    public init(serverID: String, certificate: Data, protocolVersion: Int) {
        self.serverID = serverID
        self.certificate = certificate
        self.protocolVersion = protocolVersion
    }

    enum CodingKeys: String, CodingKey {
        case serverID = "server_id", certificate, protocolVersion = "protocol_version"
    }
}

/// The terms a client asks for.
///
/// JSON: `{"kind": "rental", "rental_duration_seconds": 172800, "play_duration_seconds": 86400}`.
/// A purchase carries no durations. A rental needs `rental_duration_seconds`; either kind
/// of rental may add `play_duration_seconds` (dual expiry). Durations must be 1 s to 10
/// years, otherwise the server answers `rental_terms_invalid`.
public struct LicenseTerms: Codable, Sendable, Hashable {
    /// Purchase or rental.
    public var kind: LicenseKind
    /// How long a rental lasts from issue; required for rentals, refused for purchases.
    public var rentalDurationSeconds: Int64?
    /// How long playback may last once it has started (dual expiry); rentals only.
    public var playDurationSeconds: Int64?

    public init(kind: LicenseKind, rentalDurationSeconds: Int64? = nil, playDurationSeconds: Int64? = nil) {
        self.kind = kind
        self.rentalDurationSeconds = rentalDurationSeconds
        self.playDurationSeconds = playDurationSeconds
    }

    /// A purchase: no expiry.
    public static let purchase = LicenseTerms(kind: .purchase)

    enum CodingKeys: String, CodingKey {
        case kind, rentalDurationSeconds = "rental_duration_seconds", playDurationSeconds = "play_duration_seconds"
    }
}

/// The body of a `POST` to the license endpoint.
///
/// JSON: `{"asset_id": "v1", "key_id": "k1", "nonce": "n-1", "terms": {"kind": "purchase"}}`.
/// `asset_id`, `key_id` and `nonce` must be non-empty.
public struct LicenseRequest: Codable, Sendable, Hashable {
    public var assetID: String
    public var keyID: String
    /// A client-chosen value echoed in the license, tying answer to request.
    public var nonce: String
    public var terms: LicenseTerms

    public init(assetID: String, keyID: String, nonce: String, terms: LicenseTerms) {
        self.assetID = assetID
        self.keyID = keyID
        self.nonce = nonce
        self.terms = terms
    }

    enum CodingKeys: String, CodingKey {
        case assetID = "asset_id", keyID = "key_id", nonce, terms
    }
}

/// The body of a `POST` to the renewal endpoint: renew the license whose signature is
/// `previousSignature` (JSON `previous_signature`, base64 as it appeared in the license).
public struct RenewalRequest: Codable, Sendable, Hashable {
    public var assetID: String
    public var keyID: String
    public var nonce: String
    public var previousSignature: String

    public init(assetID: String, keyID: String, nonce: String, previousSignature: String) {
        self.assetID = assetID
        self.keyID = keyID
        self.nonce = nonce
        self.previousSignature = previousSignature
    }

    enum CodingKeys: String, CodingKey {
        case assetID = "asset_id", keyID = "key_id", nonce, previousSignature = "previous_signature"
    }
}

/// A signed license, as issued or renewed by the license server and checked by the
/// engine: the signature is a base64 HMAC-SHA256 over `LicenseCanonicalEncoding.bytes(of:)`.
///
/// JSON example (a rental with dual expiry):
/// ```json
/// {"asset_id": "v1", "key_id": "k1", "nonce": "n-1", "kind": "rental",
///  "content_key": "AAECAwQFBgcICQoLDA0ODw==", "issued_at": 1767225600,
///  "expires_at": 1767398400, "play_duration_seconds": 86400,
///  "signature": "…base64 HMAC-SHA256…"}
/// ```
/// Absent optionals are omitted from the JSON, never written as `null`.
public struct License: Codable, Sendable, Hashable {
    public var assetID: String
    public var keyID: String
    /// The nonce of the request this license answers.
    public var nonce: String
    public var kind: LicenseKind
    /// The 16-byte AES-128 content key (base64 in JSON); absent in a renewal.
    public var contentKey: Data?
    /// When the license was issued, in Unix seconds.
    public var issuedAt: Int64
    /// When the license stops working, in Unix seconds; absent for a purchase.
    public var expiresAt: Int64?
    /// Dual expiry: playback may last this long once it has first started. The client
    /// enforces it (the server never learns when playback starts).
    public var playDurationSeconds: Int64?
    /// For a renewal: the signature of the license it renews.
    public var renewalOf: String?
    /// Base64 HMAC-SHA256 over `LicenseCanonicalEncoding.bytes(of:)`.
    public var signature: String

    public init(
        assetID: String, keyID: String, nonce: String, kind: LicenseKind, contentKey: Data?,
        issuedAt: Int64, expiresAt: Int64?, playDurationSeconds: Int64?, renewalOf: String?,
        signature: String
    ) {
        self.assetID = assetID
        self.keyID = keyID
        self.nonce = nonce
        self.kind = kind
        self.contentKey = contentKey
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.playDurationSeconds = playDurationSeconds
        self.renewalOf = renewalOf
        self.signature = signature
    }

    /// `issuedAt` as a `Date`.
    public var issueDate: Date { Date(timeIntervalSince1970: TimeInterval(issuedAt)) }
    /// `expiresAt` as a `Date`; `nil` for a purchase.
    public var expirationDate: Date? { expiresAt.map { Date(timeIntervalSince1970: TimeInterval($0)) } }

    enum CodingKeys: String, CodingKey {
        case assetID = "asset_id", keyID = "key_id", nonce, kind, contentKey = "content_key"
        case issuedAt = "issued_at", expiresAt = "expires_at", playDurationSeconds = "play_duration_seconds"
        case renewalOf = "renewal_of", signature
    }
}
