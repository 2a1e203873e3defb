extension MediaPlaylist {
    /// Parses a media playlist; throws if `text` is a master playlist or malformed.
    ///
    /// Pure and thread-safe. Unknown tags and comments are ignored (RFC 8216 §6.3.1).
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

/// The state of a media playlist parse: header so far, and the tags pending for the next segment.
private struct MediaPlaylistParser {
    var playlist = MediaPlaylist(targetDuration: 0)
    var seen: [String: Int] = [:]
    var info: (duration: Double, title: String, line: Int)?
    var byteRange: (length: Int, offset: Int?, line: Int)?
    var discontinuity = false
    var key: EncryptionKey?
    var map: MediaInitializationSection?

    mutating func once(_ tag: String, line: Int) throws(PlaylistError) {
        if let first = seen[tag] {
            throw PlaylistError(line: line, "\(tag) appears twice (first on line \(first))")
        }
        seen[tag] = line
    }

    mutating func tag(_ name: String, value: String?, line: Int) throws(PlaylistError) {
        switch name {
        case "EXT-X-VERSION":
            try once(name, line: line)
            playlist.version = try Playlist.integerValue(of: name, value, line: line)
        case "EXT-X-TARGETDURATION":
            try once(name, line: line)
            playlist.targetDuration = try Playlist.integerValue(of: name, value, line: line)
        case "EXT-X-MEDIA-SEQUENCE":
            try once(name, line: line)
            playlist.mediaSequence = try Playlist.integerValue(of: name, value, line: line)
        case "EXT-X-PLAYLIST-TYPE":
            try once(name, line: line)
            guard let type = MediaPlaylist.PlaylistType(rawValue: value ?? "") else {
                throw PlaylistError(line: line, "EXT-X-PLAYLIST-TYPE must be EVENT or VOD")
            }
            playlist.playlistType = type
        case "EXT-X-ENDLIST": playlist.endList = true
        case "EXT-X-INDEPENDENT-SEGMENTS": playlist.independentSegments = true
        case "EXT-X-DISCONTINUITY": discontinuity = true
        case "EXTINF": try extinf(value, line: line)
        case "EXT-X-BYTERANGE":
            guard let range = ByteRange.parse(value ?? "") else {
                throw PlaylistError(
                    line: line, "EXT-X-BYTERANGE '\(PlaylistError.excerpt(value ?? ""))' is not length[@offset]")
            }
            byteRange = (range.length, range.offset, line)
        case "EXT-X-KEY":
            key = try EncryptionKey(attributes: AttributeList(parsing: value, tag: name, line: line))
        case "EXT-X-MAP":
            let a = try AttributeList(parsing: value, tag: name, line: line)
            let uri = try a.required("URI", a.quotedString("URI"))
            var range: ByteRange?
            if let text = try a.quotedString("BYTERANGE") {
                guard let parsed = ByteRange.parse(text) else {
                    throw PlaylistError(line: line, "EXT-X-MAP BYTERANGE '\(PlaylistError.excerpt(text))' is not length[@offset]")
                }
                range = ByteRange(length: parsed.length, offset: parsed.offset ?? 0)
            }
            map = MediaInitializationSection(uri: uri, byteRange: range)
        default:
            break  // unknown or unmodelled tags are ignored, as RFC 8216 §6.3.1 asks of clients
        }
    }

    mutating func extinf(_ value: String?, line: Int) throws(PlaylistError) {
        if let info {
            throw PlaylistError(line: line, "a URI line was expected after EXTINF on line \(info.line)")
        }
        let text = value ?? ""
        let comma = text.firstIndex(of: ",")
        let durationText = comma.map { String(text[..<$0]) } ?? text
        guard let duration = Scalars.float(durationText), duration >= 0 else {
            throw PlaylistError(
                line: line, "EXTINF duration '\(PlaylistError.excerpt(durationText))' is not a number")
        }
        let title = comma.map { String(text[text.index(after: $0)...]) } ?? ""
        info = (duration, title, line)
    }

    mutating func segmentURI(_ uri: String, line: Int) throws(PlaylistError) {
        guard let info else {
            throw PlaylistError(line: line, "URI line '\(PlaylistError.excerpt(uri))' has no EXTINF before it")
        }
        var range: ByteRange?
        if let byteRange {
            var offset = byteRange.offset
            if offset == nil {
                guard let previous = playlist.segments.last, previous.uri == uri,
                      let previousRange = previous.byteRange
                else {
                    throw PlaylistError(
                        line: byteRange.line,
                        "EXT-X-BYTERANGE without an offset must follow a byte range of the same URI")
                }
                offset = previousRange.end
            }
            guard let start = offset, ByteRange(length: byteRange.length, offset: start).end != nil else {
                throw PlaylistError(line: byteRange.line, "EXT-X-BYTERANGE is too large")
            }
            range = ByteRange(length: byteRange.length, offset: start)
        }
        playlist.segments.append(MediaSegment(
            duration: info.duration, title: info.title, uri: uri, byteRange: range,
            key: key, map: map, discontinuity: discontinuity))
        self.info = nil
        self.byteRange = nil
        discontinuity = false
    }

    func finish() throws(PlaylistError) -> MediaPlaylist {
        if let info {
            throw PlaylistError(line: info.line + 1, "a URI line was expected after EXTINF")
        }
        guard seen["EXT-X-TARGETDURATION"] != nil else {
            throw PlaylistError(line: 0, "a media playlist needs EXT-X-TARGETDURATION")
        }
        return playlist
    }
}
