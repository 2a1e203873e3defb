import BenchCore
import Crypto
import Foundation

/// Signs and verifies licenses with HMAC-SHA256 over `LicenseCanonicalEncoding.bytes(of:)`
/// (BenchCore, shared with the engine, which verifies every license it receives).
///
/// Stateless and `Sendable`; callable from any thread.
public enum LicenseSignature {
    /// The bytes the signature covers.
    public static func canonicalBytes(of license: License) -> [UInt8] {
        LicenseCanonicalEncoding.bytes(of: license)
    }

    /// The base64 HMAC-SHA256 of `canonicalBytes(of: license)` under `secret`.
    public static func signature(of license: License, secret: SymmetricKey) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: canonicalBytes(of: license), using: secret)
        return Data(mac).base64EncodedString()
    }

    /// `license` with its `signature` set.
    public static func signed(_ license: License, secret: SymmetricKey) -> License {
        var copy = license
        copy.signature = signature(of: license, secret: secret)
        return copy
    }

    /// True when `license.signature` is a valid HMAC of its other fields under `secret`.
    /// Compares in constant time; a signature that is not base64 is simply invalid.
    public static func verify(_ license: License, secret: SymmetricKey) -> Bool {
        guard let mac = Data(base64Encoded: license.signature) else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: canonicalBytes(of: license), using: secret)
    }

    /// `verify(_:secret:)` with the secret as raw bytes (for callers that do not import Crypto).
    public static func verify(_ license: License, secret: [UInt8]) -> Bool {
        verify(license, secret: SymmetricKey(data: secret))
    }
}
