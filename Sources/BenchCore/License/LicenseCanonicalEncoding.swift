/// The bytes a license signature covers (HMAC-SHA256, base64 in `License.signature`).
///
/// The canonical encoding (version 1) is the ASCII tag `deadzone-license-v1` followed,
/// in this fixed order, by one item per field other than the signature:
/// `asset_id`, `key_id`, `nonce`, `kind`, `content_key`, `issued_at`, `expires_at`,
/// `play_duration_seconds`, `renewal_of`. Each item is a one-byte marker — `0x00` for an
/// absent optional (nothing follows), `0x01` for a present value — then the value's
/// length as a 4-byte big-endian unsigned integer, then the value's bytes:
/// strings as UTF-8, `kind` as its raw value, `content_key` as the raw 16 key bytes,
/// integers as decimal ASCII (`-` for negatives, no leading zeros). Lengths make the
/// encoding unambiguous: no two licenses share one.
///
/// A pure function; the server signs these bytes and the engine verifies them.
public enum LicenseCanonicalEncoding {
    /// Version of the encoding and of the license protocol.
    public static let version = 1

    /// The bytes the signature covers.
    public static func bytes(of license: License) -> [UInt8] {
        var out = Array("deadzone-license-v1".utf8)
        func item(_ bytes: [UInt8]?) {
            guard let bytes else { out.append(0); return }
            out.append(1)
            let n = UInt32(truncatingIfNeeded: bytes.count)
            out += [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
            out += bytes
        }
        func text(_ s: String?) -> [UInt8]? { s.map { Array($0.utf8) } }
        func number(_ n: Int64?) -> [UInt8]? { n.map { Array(String($0).utf8) } }
        item(text(license.assetID))
        item(text(license.keyID))
        item(text(license.nonce))
        item(text(license.kind.rawValue))
        item(license.contentKey.map { Array($0) })
        item(number(license.issuedAt))
        item(number(license.expiresAt))
        item(number(license.playDurationSeconds))
        item(text(license.renewalOf))
        return out
    }

}
