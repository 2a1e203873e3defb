import Foundation
import HLSPlaylist

/// The keys of a `.multiDRM` video: like a real multi-DRM (CBCS-style) package, every
/// segment lists the FairPlay `skd://` key together with a Widevine and a PlayReady key
/// whose URIs are `data:` URIs holding their initialization data (a `pssh` box, a
/// PlayReady header). All three name the same content key (RFC 8216 §4.3.2.4); only the
/// `skd://` one is answered here, by the license server.
extension Catalog {
    /// KEYFORMAT of Widevine keys.
    public static let widevineKeyFormat = "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"
    /// KEYFORMAT of PlayReady keys.
    public static let playReadyKeyFormat = "com.microsoft.playready"

    /// The EXT-X-KEYs of segment `index` of `stream`: one for `.httpKey` and `.skd`;
    /// for `.multiDRM` three, the `skd://` key first in the variants at even positions
    /// of the ladder (and in audio renditions) and last in the others.
    func keys(of video: Video, stream: String, segment index: Int) -> [EncryptionKey] {
        guard let uri = keyURI(for: video.id) else { return [] }
        let iv = Self.segmentIV(index)
        let isSKD = video.protection.usesLicense
        let fairPlay = EncryptionKey(
            method: .aes128, uri: uri, iv: iv, keyFormat: isSKD ? Self.fairPlayKeyFormat : nil,
            keyFormatVersions: isSKD ? "1" : nil)
        guard video.protection == .multiDRM, let keyID = keyID(for: video.id) else { return [fairPlay] }
        let others = [
            EncryptionKey(
                method: .aes128, uri: "data:text/plain;base64," + Self.widevinePSSH(keyID: keyID), iv: iv,
                keyFormat: Self.widevineKeyFormat, keyFormatVersions: "1"),
            EncryptionKey(
                method: .aes128, uri: "data:text/plain;charset=UTF-16;base64," + Self.playReadyHeader(keyID: keyID),
                iv: iv, keyFormat: Self.playReadyKeyFormat, keyFormatVersions: "1"),
        ]
        let position = video.variants.firstIndex { $0.name == stream } ?? 0
        return position.isMultiple(of: 2) ? [fairPlay] + others : others + [fairPlay]
    }

    /// A version-0 Widevine `pssh` box whose data names `keyID` (32 hex digits), base64.
    static func widevinePSSH(keyID: String) -> String {
        let systemID: [UInt8] = [0xED, 0xEF, 0x8B, 0xA9, 0x79, 0xD6, 0x4A, 0xCE, 0xA3, 0xC8, 0x27, 0xDC, 0xD5, 0x1D, 0x21, 0xED]
        let data: [UInt8] = [0x12, 0x10] + bytes(hex: keyID)
        let size = 4 + 4 + 4 + systemID.count + 4 + data.count
        var box = bigEndian(UInt32(size)) + Array("pssh".utf8) + [0, 0, 0, 0] + systemID
        box += bigEndian(UInt32(data.count)) + data
        return Data(box).base64EncodedString()
    }

    /// A PlayReady header (UTF-16LE XML) naming `keyID`, base64.
    static func playReadyHeader(keyID: String) -> String {
        let kid = Data(bytes(hex: keyID)).base64EncodedString()
        let xml = #"<WRMHEADER xmlns="http://schemas.microsoft.com/DRM/2007/03/PlayReadyHeader" version="4.0.0.0">"#
            + "<DATA><KID>\(kid)</KID></DATA></WRMHEADER>"
        return Data(xml.utf16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] })
            .base64EncodedString()
    }

    private static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16) }
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
    }
}
