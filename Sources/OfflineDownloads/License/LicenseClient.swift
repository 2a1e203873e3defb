import BenchCore
import Crypto
import Foundation

/// Where a protected video's license server answers, from its catalog entry.
public struct LicenseEndpoints: Sendable, Hashable, Codable {
    /// The certificate endpoint.
    public var certificate: URL
    /// The license endpoint (POST a `LicenseRequest`).
    public var license: URL
    /// The renewal endpoint (POST a `RenewalRequest`): the license endpoint's URL
    /// with `/renew` appended.
    public var renewal: URL

    /// Endpoints from absolute URLs.
    public init(certificate: URL, license: URL, renewal: URL? = nil) {
        self.certificate = certificate
        self.license = license
        self.renewal = renewal ?? license.appendingPathComponent("renew")
    }
}

/// Why a license exchange failed.
public enum LicenseFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server refuses exchanges while the app is in the background: come back in
    /// the foreground (the download waits in `suspended(awaitingForeground)`).
    case appInBackground
    /// The server refused for good (unknown asset or key, bad terms, not renewable).
    case refused(code: String, message: String)
    /// The answer is not a license for this request, or its signature is wrong.
    case invalidLicense(String)
    /// The exchange did not complete (network, server error): retry later.
    case transport(TransportError)

    /// Retrying the same request cannot succeed.
    public var isPermanent: Bool {
        switch self {
        case .refused, .invalidLicense: true
        case .appInBackground: false
        case .transport(let error): error.isPermanent
        }
    }

    public var description: String {
        switch self {
        case .appInBackground: "the license server refuses requests while the app is in the background; retry in the foreground"
        case .refused(let code, let message): "license refused (\(code)): \(message)"
        case .invalidLicense(let why): "invalid license: \(why)"
        case .transport(let error): "license exchange failed: \(error)"
        }
    }
}

/// The client side of the license protocol (BenchCore `License*` messages): fetches the
/// certificate, asks for a license, verifies its HMAC signature and that it answers this
/// very request, and renews licenses. Stateless apart from its transport; `Sendable`.
public struct LicenseClient: Sendable {
    let transport: HTTPTransport
    /// Raw bytes: swift-crypto's `SymmetricKey` is not `Sendable`.
    let secret: [UInt8]

    /// A client that verifies licenses with the HMAC `secret` shared with the server.
    public init(transport: HTTPTransport, secret: [UInt8]) {
        self.transport = transport
        self.secret = secret
    }

    /// Certificate, then license, over `interface`; the license is verified. Between the
    /// two, `stillForeground` is asked: an app sent to the background while its
    /// certificate was on its way sends no license request (the guides: none in the
    /// background) and throws `appInBackground`, to take the exchange up in the foreground.
    public func acquire(
        assetID: String, keyID: String, terms: LicenseTerms, at endpoints: LicenseEndpoints,
        via interface: PathInterface?, nonce: String = UUID().uuidString,
        stillForeground: @Sendable () async -> Bool = { true }
    ) async throws(LicenseFailure) -> License {
        let certificate = try await exchange(endpoints.certificate, body: nil, via: interface)
        guard (try? JSONDecoder().decode(CertificateResponse.self, from: Data(certificate))) != nil else {
            throw .invalidLicense("the certificate endpoint did not answer a certificate")
        }
        guard await stillForeground() else { throw .appInBackground }
        let request = LicenseRequest(assetID: assetID, keyID: keyID, nonce: nonce, terms: terms)
        let answer = try await exchange(endpoints.license, body: Self.encode(request), via: interface)
        let license = try verified(answer, asset: assetID, key: keyID, nonce: nonce)
        guard license.contentKey?.count == 16 else { throw .invalidLicense("no 16-byte content key") }
        return license
    }

    /// A renewal of `license`: new expiry, same key (the answer carries no key; the
    /// returned license keeps the old one).
    public func renew(
        _ license: License, at endpoints: LicenseEndpoints, via interface: PathInterface?, nonce: String = UUID().uuidString
    ) async throws(LicenseFailure) -> License {
        let request = RenewalRequest(
            assetID: license.assetID, keyID: license.keyID, nonce: nonce, previousSignature: license.signature)
        let answer = try await exchange(endpoints.renewal, body: Self.encode(request), via: interface)
        var renewed = try verified(answer, asset: license.assetID, key: license.keyID, nonce: nonce)
        guard renewed.renewalOf == license.signature else { throw .invalidLicense("the renewal names another license") }
        if renewed.contentKey == nil { renewed.contentKey = license.contentKey }
        return renewed
    }

    /// Whether `license` carries a valid signature under the shared secret.
    public func isAuthentic(_ license: License) -> Bool {
        guard let mac = Data(base64Encoded: license.signature) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(
            mac, authenticating: LicenseCanonicalEncoding.bytes(of: license), using: SymmetricKey(data: secret))
    }

    private func verified(_ body: [UInt8], asset: String, key: String, nonce: String) throws(LicenseFailure) -> License {
        guard let license = try? JSONDecoder().decode(License.self, from: Data(body)) else {
            throw .invalidLicense("the answer is not a license")
        }
        guard isAuthentic(license) else { throw .invalidLicense("bad signature") }
        guard license.assetID == asset, license.keyID == key, license.nonce == nonce else {
            throw .invalidLicense("the license answers another request")
        }
        return license
    }

    /// POST `body` (GET when nil); the body of a 2xx, or the typed refusal.
    private func exchange(_ url: URL, body: [UInt8]?, via interface: PathInterface?) async throws(LicenseFailure) -> [UInt8] {
        let answer: HTTPAnswer
        do {
            answer = try await transport.fetch(
                url, via: interface, method: body == nil ? .GET : .POST, body: body, contentType: "application/json")
        } catch {
            throw .transport(error)
        }
        if (200..<300).contains(answer.status) { return answer.body }
        if let refusal = try? JSONDecoder().decode(LicenseErrorResponse.self, from: Data(answer.body)) {
            if refusal.code == .appInBackground { throw .appInBackground }
            if refusal.code.httpStatus >= 500 { throw .transport(.status(answer.status, retryAfter: nil)) }
            throw .refused(code: refusal.code.rawValue, message: refusal.message)
        }
        throw .transport(.status(answer.status, retryAfter: nil))
    }

    private static func encode(_ value: some Encodable) -> [UInt8] {
        // The license messages hold only strings, integers and enums.
        Array((try? JSONEncoder().encode(value)) ?? Data())
    }
}
