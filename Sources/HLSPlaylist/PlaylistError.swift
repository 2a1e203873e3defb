/// Why a playlist could not be parsed, and where.
///
/// Thrown (typed) by `Playlist.parse`, `MasterPlaylist.parse` and `MediaPlaylist.parse`.
/// `line` is 1-based; it is 0 when the problem concerns the whole input (for example
/// input that is too large). `description` reads like
/// `line 7: EXT-X-STREAM-INF needs BANDWIDTH`.
public struct PlaylistError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The 1-based line the problem was found on, or 0 for the whole input.
    public var line: Int
    /// What was wrong and what was expected, without the line prefix.
    public var message: String

    /// Creates an error for `line` (1-based, 0 for the whole input).
    public init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }

    /// `line N: message`, or just the message for whole-input errors.
    public var description: String {
        line > 0 ? "line \(line): \(message)" : message
    }
}

extension PlaylistError {
    /// A short, printable excerpt of untrusted text for error messages.
    static func excerpt<S: StringProtocol>(_ text: S, limit: Int = 40) -> String {
        let prefix = text.prefix(limit)
        return prefix.count < text.count ? "\(prefix)…" : String(prefix)
    }
}
