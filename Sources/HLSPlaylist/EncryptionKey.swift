/// How media segments are encrypted: the attributes of `EXT-X-KEY` and
/// `EXT-X-SESSION-KEY` (RFC 8216 §4.3.2.4, §4.3.4.5).
///
/// `METHOD=NONE` is not a key: in a `MediaSegment` it is expressed as `key == nil`.
public struct EncryptionKey: Hashable, Sendable, Codable {
    /// The encryption method.
    public enum Method: String, Hashable, Sendable, Codable, CaseIterable {
        /// Whole segments encrypted with AES-128-CBC and PKCS7 padding.
        case aes128 = "AES-128"
        /// Sample-level encryption of the media inside segments.
        case sampleAES = "SAMPLE-AES"
        /// Sample-level AES-CTR (`cenc`) encryption, as Widevine and PlayReady keys of
        /// multi-DRM streams declare it (draft-pantos-hls-rfc8216bis §4.4.4.4).
        case sampleAESCTR = "SAMPLE-AES-CTR"
    }

    /// The encryption method.
    public var method: Method
    /// Where the key is obtained, as written (not resolved); may be an `skd://` URI.
    public var uri: String
    /// The 128-bit initialization vector (16 bytes), or nil to use the media sequence number.
    public var iv: [UInt8]?
    /// KEYFORMAT; nil means the default `identity`.
    public var keyFormat: String?
    /// KEYFORMATVERSIONS, e.g. `1/2/5`; nil means the default `1`.
    public var keyFormatVersions: String?

    /// Creates a key description.
    public init(
        method: Method, uri: String, iv: [UInt8]? = nil,
        keyFormat: String? = nil, keyFormatVersions: String? = nil
    ) {
        self.method = method
        self.uri = uri
        self.iv = iv
        self.keyFormat = keyFormat
        self.keyFormatVersions = keyFormatVersions
    }
}

extension EncryptionKey {
    /// KEYFORMAT, or `identity` when it is absent (RFC 8216 §4.3.2.4): what tells
    /// several keys of one segment apart.
    public var format: String { keyFormat ?? "identity" }

    /// Reads an `EXT-X-KEY`/`EXT-X-SESSION-KEY` attribute list; nil for `METHOD=NONE`.
    init?(attributes: AttributeList) throws(PlaylistError) {
        let method = try attributes.required("METHOD", attributes.enumerated("METHOD"))
        if method == "NONE" { return nil }
        guard let known = Method(rawValue: method) else {
            throw PlaylistError(
                line: attributes.line,
                "\(attributes.tag) METHOD '\(PlaylistError.excerpt(method))' is not NONE, AES-128, SAMPLE-AES or SAMPLE-AES-CTR")
        }
        self.init(
            method: known,
            uri: try attributes.required("URI", attributes.quotedString("URI")),
            iv: try attributes.hexBytes("IV", maximumBytes: 16),
            keyFormat: try attributes.quotedString("KEYFORMAT"),
            keyFormatVersions: try attributes.quotedString("KEYFORMATVERSIONS"))
    }

    /// The attribute list for `EXT-X-KEY`/`EXT-X-SESSION-KEY`.
    var attributeText: String {
        var writer = AttributeWriter()
        writer.enumerated("METHOD", method.rawValue)
        writer.quoted("URI", uri)
        writer.hex("IV", iv)
        writer.quoted("KEYFORMAT", keyFormat)
        writer.quoted("KEYFORMATVERSIONS", keyFormatVersions)
        return writer.text
    }
}
