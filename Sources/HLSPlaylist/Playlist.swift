import Foundation

/// Either kind of HLS playlist (RFC 8216 §4.3): the entry point for parsing text whose
/// kind is not known in advance.
///
/// Value type, `Sendable`; parsing and rendering are pure and may run on any thread.
public enum Playlist: Hashable, Sendable, Codable {
    /// A master (multivariant) playlist.
    case master(MasterPlaylist)
    /// A media playlist.
    case media(MediaPlaylist)

    /// Parses `text`, deciding its kind from its tags.
    ///
    /// A playlist with EXT-X-STREAM-INF, EXT-X-I-FRAME-STREAM-INF, EXT-X-MEDIA or
    /// EXT-X-SESSION-KEY is a master playlist; one with EXTINF, EXT-X-TARGETDURATION,
    /// EXT-X-MEDIA-SEQUENCE, EXT-X-KEY, EXT-X-MAP, EXT-X-BYTERANGE, EXT-X-PLAYLIST-TYPE or
    /// EXT-X-ENDLIST is a media playlist; tags of both kinds are an error. A playlist with
    /// neither (just `#EXTM3U`) is an empty master playlist.
    ///
    /// Never crashes or hangs on any input: input over 16 MiB and lines over 64 KiB are
    /// refused with an error. Tags it does not model are kept verbatim, in order, for
    /// `render()`; comments are dropped. Malformed metadata tags (EXT-X-DATERANGE,
    /// EXT-X-SESSION-DATA…) do not throw: each is a `warnings` entry of the playlist and is
    /// kept verbatim. Only what a downloader needs (segments, keys, maps, variants, the
    /// header's numbers) throws; `PlaylistWarning` gives the rule.
    public static func parse(_ text: String) throws(PlaylistError) -> Playlist {
        let lines = try PlaylistLines.split(text)
        var masterTag: (name: String, line: Int)?
        var mediaTag: (name: String, line: Int)?
        for line in lines {
            guard case .tag(let name, _) = line.kind else { continue }
            if masterTags.contains(name), masterTag == nil { masterTag = (name, line.number) }
            if mediaTags.contains(name), mediaTag == nil { mediaTag = (name, line.number) }
        }
        if let master = masterTag, let media = mediaTag {
            let (later, earlier) = master.line > media.line ? (master, media) : (media, master)
            throw PlaylistError(
                line: later.line,
                "\(later.name) cannot appear in the same playlist as \(earlier.name) (line \(earlier.line))")
        }
        if mediaTag != nil { return .media(try MediaPlaylist(lines: lines)) }
        return .master(try MasterPlaylist(lines: lines))
    }

    /// Parses playlist bytes as UTF-8 (invalid sequences become U+FFFD).
    /// Refuses more than 16 MiB before decoding.
    public static func parse(_ data: Data) throws(PlaylistError) -> Playlist {
        guard data.count <= PlaylistLines.maximumInputBytes else {
            throw PlaylistError(line: 0, "the playlist is \(data.count) bytes; the limit is 16 MiB")
        }
        return try parse(String(decoding: data, as: UTF8.self))
    }

    /// Writes the playlist as RFC 8216 text; see `MasterPlaylist.render()` and
    /// `MediaPlaylist.render()`. `Playlist.parse(p.render()) == p` for parsed playlists
    /// (the whole value: every modelled tag and attribute, and unknown tags).
    public func render() -> String {
        switch self {
        case .master(let master): master.render()
        case .media(let media): media.render()
        }
    }

    /// The warnings of the playlist parsed (`MasterPlaylist.warnings` or
    /// `MediaPlaylist.warnings`): what the parser accepted but ignored.
    public var warnings: [PlaylistWarning] {
        switch self {
        case .master(let master): master.warnings
        case .media(let media): media.warnings
        }
    }

    static let masterTags: Set<String> = [
        "EXT-X-STREAM-INF", "EXT-X-I-FRAME-STREAM-INF", "EXT-X-MEDIA", "EXT-X-SESSION-KEY",
        "EXT-X-SESSION-DATA",
    ]
    static let mediaTags: Set<String> = [
        "EXTINF", "EXT-X-TARGETDURATION", "EXT-X-MEDIA-SEQUENCE", "EXT-X-KEY", "EXT-X-MAP",
        "EXT-X-BYTERANGE", "EXT-X-PLAYLIST-TYPE", "EXT-X-ENDLIST", "EXT-X-DISCONTINUITY",
        "EXT-X-DISCONTINUITY-SEQUENCE", "EXT-X-PROGRAM-DATE-TIME", "EXT-X-I-FRAMES-ONLY",
    ]

    /// Reads the `decimal-integer` value of a tag such as `EXT-X-VERSION:3`.
    static func integerValue(of tag: String, _ value: String?, line: Int) throws(PlaylistError) -> Int {
        guard let value, let number = Scalars.decimalInteger(value) else {
            throw PlaylistError(line: line, "\(tag) '\(PlaylistError.excerpt(value ?? ""))' is not a decimal integer")
        }
        return number
    }

    /// A URI on its own line, with any line break replaced so the line stays one line.
    static func uriLine(_ uri: String) -> String {
        uri.replacingLineBreaks()
    }
}
