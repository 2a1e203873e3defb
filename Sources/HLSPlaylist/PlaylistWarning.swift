/// Something the parser accepted but ignored. Read it from `MediaPlaylist.warnings` or
/// `MasterPlaylist.warnings`.
///
/// The parser is strict only about what a downloader needs: segments (EXTINF,
/// EXT-X-BYTERANGE, the URI lines), keys (EXT-X-KEY, EXT-X-SESSION-KEY), maps (EXT-X-MAP),
/// variants and renditions (EXT-X-STREAM-INF, EXT-X-I-FRAME-STREAM-INF, EXT-X-MEDIA),
/// EXT-X-TARGETDURATION, EXT-X-MEDIA-SEQUENCE, EXT-X-DISCONTINUITY-SEQUENCE, EXT-X-VERSION,
/// EXT-X-ENDLIST, EXT-X-PLAYLIST-TYPE and EXT-X-SKIP's SKIPPED-SEGMENTS (it numbers the
/// segments): a problem there is a `PlaylistError`. It is lenient about the metadata tags
/// it models (EXT-X-DATERANGE, EXT-X-PROGRAM-DATE-TIME, EXT-X-START, EXT-X-SESSION-DATA,
/// EXT-X-SKIP's RECENTLY-REMOVED-DATERANGES), as players are: a malformed or missing
/// attribute, or a second EXT-X-START, is a warning, and the tag is kept as written (with
/// the unknown tags, or as EXT-X-SKIP's own text) so that `render()` writes the same line
/// again. Tags it does not model (EXT-X-SERVER-CONTROL, EXT-X-PART-INF, EXT-X-PART,
/// EXT-X-PRELOAD-HINT, EXT-X-RENDITION-REPORT, EXT-X-CONTENT-STEERING…) are never read, so
/// they are kept verbatim without a warning.
public struct PlaylistWarning: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The 1-based line concerned.
    public var line: Int
    /// The tag concerned, without `#` (e.g. `EXT-X-DATERANGE`); nil when the warning
    /// concerns no single tag.
    public var tag: String?
    /// What was wrong, what was ignored and what was kept.
    public var message: String

    /// Creates a warning that names no tag.
    public init(line: Int, _ message: String) {
        self.init(line: line, tag: nil, message)
    }

    /// Creates a warning about `tag` on `line`.
    public init(line: Int, tag: String?, _ message: String) {
        self.line = line
        self.tag = tag
        self.message = message
    }

    /// `line N: message`.
    public var description: String { "line \(line): \(message)" }
}

extension PlaylistWarning {
    /// The warning for a metadata tag that could not be read: the error's line and
    /// message, then what became of the tag.
    static func unread(_ tag: String, _ error: PlaylistError, _ consequence: String = "the tag is kept as written")
        -> PlaylistWarning
    {
        PlaylistWarning(line: error.line, tag: tag, "\(error.message); \(consequence)")
    }
}
