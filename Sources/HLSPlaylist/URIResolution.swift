import Foundation

/// Resolves a URI found in a playlist against the URL the playlist was loaded from
/// (RFC 8216 §4.1, RFC 3986 §5).
///
/// - Absolute URIs (any scheme, e.g. `https:`, `data:`, `skd:`) are returned as they are;
///   `skd://` key URIs are never rewritten, since only a license answers them.
/// - Network-path (`//host/x`), absolute-path (`/x`) and relative (`x`, `../x`, `?q`)
///   references are resolved against `playlistURL`.
///
/// Returns nil when `uri` cannot be made into a URL. Pure; any thread.
public func resolve(_ uri: String, against playlistURL: URL) -> URL? {
    if hasScheme(uri) { return URL(string: uri) }
    return URL(string: uri, relativeTo: playlistURL)?.absoluteURL
}

/// Whether `uri` starts with an RFC 3986 scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":".
private func hasScheme(_ uri: String) -> Bool {
    guard let colon = uri.utf8.firstIndex(of: UInt8(ascii: ":")) else { return false }
    let scheme = uri.utf8[..<colon]
    guard let first = scheme.first, isLetter(first) else { return false }
    return scheme.allSatisfy { isLetter($0) || (0x30...0x39).contains($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }
}

private func isLetter(_ byte: UInt8) -> Bool {
    (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
}
