import BenchCore
import Foundation

/// Why a stream (or a part of it) cannot be recorded. Each says what to do; what was
/// recorded before it stays in the catalog directory and its manifest.
public enum RecordError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A media playlist with no EXT-X-ENDLIST: a live stream has no end to record.
    case livePlaylist(url: String, lastLine: Int)
    /// A playlist that does not parse.
    case unreadablePlaylist(url: String, reason: String)
    /// Something a playlist names that the recorder cannot fetch or does not know.
    case unsupported(url: String, line: Int, String)
    /// The server answered a status other than 2xx (after redirects).
    case status(url: String, status: Int, namedBy: String?)
    /// The request failed: no connection, a TLS failure, a timeout.
    case fetch(url: String, reason: String)
    /// The body ended before the length the server announced.
    case truncated(url: String, received: Int64, expected: Int64)
    /// More than 10 redirects, or a redirect with no usable Location.
    case redirect(url: String, reason: String)
    /// The catalog directory or its manifest cannot be read or written.
    case storage(path: String, reason: String)
    /// The command line named no stream, or one twice.
    case badArguments(String)

    public var description: String {
        switch self {
        case .livePlaylist(let url, let lastLine):
            "\(url) is a live playlist: it has no #EXT-X-ENDLIST (its last line is \(lastLine)), so it has no end to "
                + "record. Record a VOD stream, or the live stream once it has ended."
        case .unreadablePlaylist(let url, let reason):
            "\(url) is not a playlist the recorder can read: \(reason)."
        case .unsupported(let url, let line, let what):
            "\(url) line \(line) \(what): the recorder cannot record it."
        case .status(let url, let status, let namedBy):
            "\(url) answered \(status)\(namedBy.map { " (named by \($0))" } ?? ""): the recorder records what the "
                + "origin serves with a 2xx status only. Check the URL, and any token or cookie it needs."
        case .fetch(let url, let reason):
            "cannot fetch \(url): \(reason)."
        case .truncated(let url, let received, let expected):
            "\(url) ended after \(received) of the \(expected) bytes its Content-Length announced; run the same "
                + "command again to fetch it again."
        case .redirect(let url, let reason):
            "\(url): \(reason)."
        case .storage(let path, let reason):
            "\(path): \(reason)."
        case .badArguments(let reason):
            reason
        }
    }
}
