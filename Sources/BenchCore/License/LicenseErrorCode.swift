/// Why the license server refused a request. Raw values are the wire `code`s.
public enum LicenseErrorCode: String, Codable, Sendable, Hashable, CaseIterable {
    /// The harness says the app is in the background: every license exchange (and the
    /// certificate) is refused, as FairPlay refuses key requests from a backgrounded
    /// app. HTTP 403. No other condition uses this code or this status.
    case appInBackground = "app_in_background"
    /// No such asset. HTTP 404.
    case unknownAsset = "unknown_asset"
    /// The asset exists but has no such key. HTTP 404.
    case unknownKey = "unknown_key"
    /// The body is not a well-formed request (not JSON, missing or empty fields,
    /// too large). HTTP 400.
    case badRequest = "bad_request"
    /// The previous license is a purchase, unknown to this server, or for another
    /// asset or key. HTTP 409.
    case notRenewable = "not_renewable"
    /// The terms are inconsistent: a rental with no duration, a purchase with one, a
    /// duration under 1 s or over 10 years. HTTP 422.
    case rentalTermsInvalid = "rental_terms_invalid"
    /// The key store holds a key that is not 16 bytes: a fixture bug. HTTP 500.
    case keyUnavailable = "key_unavailable"

    /// The HTTP status the server answers with for this code.
    public var httpStatus: Int {
        switch self {
        case .appInBackground: 403
        case .unknownAsset, .unknownKey: 404
        case .badRequest: 400
        case .notRenewable: 409
        case .rentalTermsInvalid: 422
        case .keyUnavailable: 500
        }
    }
}

/// The JSON body of every refusal: `{"code": "unknown_asset", "message": "…"}`.
public struct LicenseErrorResponse: Codable, Sendable, Hashable, Error {
    public var code: LicenseErrorCode
    /// A sentence for people; not meant to be parsed.
    public var message: String

    public init(code: LicenseErrorCode, message: String) {
        self.code = code
        self.message = message
    }
}
