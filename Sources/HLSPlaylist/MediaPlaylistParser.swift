/// The state of a media playlist parse: header so far, the keys in effect, and the tags
/// pending for the next segment. Internal; one per parse.
struct MediaPlaylistParser {
    var playlist = MediaPlaylist(targetDuration: 0)
    var seen: [String: Int] = [:]
    var info: (duration: Double, title: String, line: Int)?
    var byteRange: (length: Int, offset: Int?, line: Int)?
    var discontinuity = false
    var programDateTime: String?
    var dateRanges: [DateRange] = []
    var unknownTags: [String] = []
    /// One key per KEYFORMAT, in the order first written; METHOD=NONE empties it.
    var keys: [EncryptionKey] = []
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
        case "EXT-X-DISCONTINUITY-SEQUENCE":
            try once(name, line: line)
            playlist.discontinuitySequence = try Playlist.integerValue(of: name, value, line: line)
        case "EXT-X-PLAYLIST-TYPE":
            try once(name, line: line)
            guard let type = MediaPlaylist.PlaylistType(rawValue: value ?? "") else {
                throw PlaylistError(line: line, "EXT-X-PLAYLIST-TYPE must be EVENT or VOD")
            }
            playlist.playlistType = type
        case "EXT-X-START":
            let first = seen[name]
            if first == nil { seen[name] = line }
            let start = metadata(name, value, line: line) { () throws(PlaylistError) in
                if let first { throw PlaylistError(line: line, "\(name) appears twice (first on line \(first))") }
                return try StartPoint(attributes: AttributeList(parsing: value, tag: name, line: line))
            }
            if let start { playlist.start = start }
        case "EXT-X-SKIP":
            try once(name, line: line)
            guard playlist.segments.isEmpty, info == nil else {
                throw PlaylistError(line: line, "EXT-X-SKIP must come before the first segment")
            }
            let attributes = try AttributeList(parsing: value, tag: name, line: line)
            var warning: PlaylistWarning?
            let skip = try Skip(attributes: attributes, text: value ?? "", warning: &warning)
            playlist.skip = skip
            if let warning { playlist.warnings.append(warning) }
        case "EXT-X-ENDLIST": playlist.endList = true
        case "EXT-X-I-FRAMES-ONLY": playlist.iFramesOnly = true
        case "EXT-X-INDEPENDENT-SEGMENTS": playlist.independentSegments = true
        case "EXT-X-DISCONTINUITY": discontinuity = true
        case "EXT-X-PROGRAM-DATE-TIME":
            let date = metadata(name, value, line: line) { () throws(PlaylistError) in
                guard let value, !value.isEmpty else { throw PlaylistError(line: line, "\(name) needs a date-time") }
                return value
            }
            if let date { programDateTime = date }
        case "EXT-X-DATERANGE":
            let range = metadata(name, value, line: line) { () throws(PlaylistError) in
                try DateRange(attributes: AttributeList(parsing: value, tag: name, line: line))
            }
            if let range { dateRanges.append(range) }
        case "EXTINF": try extinf(value, line: line)
        case "EXT-X-BYTERANGE":
            guard let range = ByteRange.parse(value ?? "") else {
                throw PlaylistError(
                    line: line, "EXT-X-BYTERANGE '\(PlaylistError.excerpt(value ?? ""))' is not length[@offset]")
            }
            byteRange = (range.length, range.offset, line)
        case "EXT-X-KEY":
            guard let key = try EncryptionKey(attributes: AttributeList(parsing: value, tag: name, line: line)) else {
                keys = []
                return
            }
            if let same = keys.firstIndex(where: { $0.format == key.format }) {
                keys[same] = key  // a key replaces the earlier one of its KEYFORMAT
            } else {
                keys.append(key)
            }
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
            unknownTags.append(UnknownTag.line(name: name, value: value))
        }
    }

    /// Reads a metadata tag with `read`; when that throws, the problem becomes a warning
    /// and the line is kept as written, as an unknown tag of the next segment (or a trailing tag).
    mutating func metadata<T>(
        _ name: String, _ value: String?, line: Int, _ read: () throws(PlaylistError) -> T
    ) -> T? {
        do {
            return try read()
        } catch {
            playlist.warnings.append(.unread(name, error))
            unknownTags.append(UnknownTag.line(name: name, value: value))
            return nil
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
            duration: info.duration, title: info.title, uri: uri, byteRange: range, keys: keys, map: map,
            discontinuity: discontinuity, programDateTime: programDateTime, dateRanges: dateRanges,
            unknownTags: unknownTags))
        self.info = nil
        self.byteRange = nil
        discontinuity = false
        programDateTime = nil
        dateRanges = []
        unknownTags = []
    }

    /// The playlist. A final EXTINF with no URI is dropped with a warning when the
    /// playlist is live (a captured live playlist often ends so), else an error; tags
    /// written after the last segment are kept as trailing tags.
    func finish() throws(PlaylistError) -> MediaPlaylist {
        var playlist = playlist
        if let info {
            guard !playlist.isVOD else {
                throw PlaylistError(line: info.line + 1, "a URI line was expected after EXTINF")
            }
            playlist.warnings.append(PlaylistWarning(
                line: info.line, tag: "EXTINF",
                "the last EXTINF has no URI line (a live playlist caught while a segment was being added); it is ignored"))
        }
        guard seen["EXT-X-TARGETDURATION"] != nil else {
            throw PlaylistError(line: 0, "a media playlist needs EXT-X-TARGETDURATION")
        }
        playlist.trailingDateRanges = dateRanges
        playlist.trailingTags = unknownTags
        return playlist
    }
}
