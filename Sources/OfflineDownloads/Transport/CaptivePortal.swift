import Foundation
import NIOHTTP1

/// Recognises a captive portal's answer: the login page a hotel's, a station's or an
/// operator's network serves in place of whatever was asked for until the user signs in
/// (or tops up). Such an answer is not content: the engine never writes it into a
/// package, and treats it as "the network is not usable yet" (`TransportError.captivePortal`:
/// suspended for the network, retried with the backoff, never a failure).
///
/// The rule, for every request the engine makes (playlists, segments, init sections,
/// keys, images, the catalog, the license server): an answer is a portal's when
/// - its status is 511 Network Authentication Required (RFC 6585 §6), or
/// - its status is 2xx and its `Content-Type` is `text/html` or `application/xhtml+xml`
///   (parameters such as `charset` ignored, any case): nothing the engine asks for is
///   a web page;
/// and, for a playlist, when its 2xx body does not start with `#EXTM3U` once an
/// optional UTF-8 byte order mark and whitespace are skipped (`isPlaylistText`): a
/// portal may well label its page `text/plain`, or nothing at all. Only the header's
/// presence is checked here; a playlist that has it but is broken (`#EXTM3U8`, a
/// dangling tag) is the parser's to refuse, a permanent failure.
///
/// Pure; any thread.
public enum CaptivePortal {
    /// RFC 6585's status for "sign in to the network first".
    public static let networkAuthenticationRequired = 511

    /// Whether `contentType` (a `Content-Type` header value) names a web page.
    public static func isWebPage(contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let name = mediaType.trimmingCharacters(in: .whitespaces).lowercased()
        return name == "text/html" || name == "application/xhtml+xml"
    }

    /// Whether `body` starts like a playlist: `#EXTM3U` after an optional UTF-8 byte
    /// order mark and any ASCII whitespace (space, tab, CR, LF).
    public static func isPlaylistText(_ body: some Collection<UInt8>) -> Bool {
        var rest = body[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        let text = rest.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        return text.starts(with: "#EXTM3U".utf8)
    }

    /// The error for an answer of `status` with `headers` to `what` (a request's
    /// method and path, for the message), or nil when it is not a portal's.
    public static func check(status: Int, headers: HTTPHeaders, for what: String) -> TransportError? {
        if status == networkAuthenticationRequired {
            return .captivePortal("\(what) answered 511 Network Authentication Required")
        }
        let contentType = headers.first(name: "Content-Type")
        guard (200..<300).contains(status), isWebPage(contentType: contentType) else { return nil }
        return .captivePortal("\(what) answered \(status) with a web page (\(contentType ?? ""))")
    }

    /// The error for a 2xx answer with `body` to the playlist request `what` whose body is
    /// not a playlist, or nil when it starts like one.
    public static func checkPlaylist(_ body: some Collection<UInt8>, for what: String) -> TransportError? {
        guard !isPlaylistText(body) else { return nil }
        return .captivePortal("\(what) answered something that is not a playlist (no #EXTM3U): \(preview(body))")
    }

    /// The first bytes of `body` as text, for a message.
    static func preview(_ body: some Collection<UInt8>) -> String {
        let text = String(decoding: body.prefix(60), as: UTF8.self)
            .map { $0.isNewline ? " " : $0 }
        return "\"" + String(text) + (body.count > 60 ? "…" : "") + "\""
    }
}
