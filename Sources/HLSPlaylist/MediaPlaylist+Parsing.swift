extension MediaPlaylist {
    /// Parses a media playlist; throws if `text` is a master playlist or malformed.
    ///
    /// Pure and thread-safe. Unmodelled tags are kept verbatim (see `MediaSegment.unknownTags`);
    /// comments are dropped. A final EXTINF with no URI is an error in a VOD playlist and
    /// is ignored, with a `warnings` entry, in a live one. A malformed metadata tag
    /// (EXT-X-DATERANGE, EXT-X-PROGRAM-DATE-TIME, EXT-X-START, EXT-X-SKIP's
    /// RECENTLY-REMOVED-DATERANGES) is a `warnings` entry and is kept verbatim; only what a
    /// downloader needs throws (see `PlaylistWarning`).
    public static func parse(_ text: String) throws(PlaylistError) -> MediaPlaylist {
        switch try Playlist.parse(text) {
        case .media(let media): return media
        case .master: throw PlaylistError(line: 0, "this is a master playlist, not a media playlist")
        }
    }

    /// Parses classified lines already known to belong to a media playlist.
    init(lines: [PlaylistLine]) throws(PlaylistError) {
        var parser = MediaPlaylistParser()
        for line in lines {
            switch line.kind {
            case .uri(let uri): try parser.segmentURI(uri, line: line.number)
            case .tag(let name, let value): try parser.tag(name, value: value, line: line.number)
            }
        }
        self = try parser.finish()
    }
}
