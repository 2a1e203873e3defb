extension MasterPlaylist {
    /// Parses a master playlist; throws if `text` is a media playlist or malformed.
    ///
    /// Pure and thread-safe. Unmodelled tags are kept verbatim in `unknownTags`; comments are
    /// dropped. A malformed EXT-X-START or EXT-X-SESSION-DATA (metadata) is a `warnings` entry
    /// and is kept verbatim in `unknownTags`; see `PlaylistWarning` for which tags are lenient.
    public static func parse(_ text: String) throws(PlaylistError) -> MasterPlaylist {
        switch try Playlist.parse(text) {
        case .master(let master): return master
        case .media: throw PlaylistError(line: 0, "this is a media playlist, not a master playlist")
        }
    }

    /// Parses classified lines already known to belong to a master playlist.
    init(lines: [PlaylistLine]) throws(PlaylistError) {
        self.init()
        var pending: (attributes: AttributeList, line: Int)?
        for line in lines {
            if let (attributes, tagLine) = pending {
                guard case .uri(let uri) = line.kind else {
                    throw PlaylistError(line: line.number, "a URI line was expected after EXT-X-STREAM-INF")
                }
                variants.append(try Self.variant(attributes, uri: uri, line: tagLine))
                pending = nil
                continue
            }
            switch line.kind {
            case .uri(let uri):
                throw PlaylistError(
                    line: line.number, "URI line '\(PlaylistError.excerpt(uri))' does not follow EXT-X-STREAM-INF")
            case .tag(let name, let value):
                try apply(tag: name, value: value, line: line.number, pending: &pending)
            }
        }
        if let (_, tagLine) = pending {
            throw PlaylistError(line: tagLine + 1, "a URI line was expected after EXT-X-STREAM-INF")
        }
    }

    private mutating func apply(
        tag: String, value: String?, line: Int, pending: inout (attributes: AttributeList, line: Int)?
    ) throws(PlaylistError) {
        switch tag {
        case "EXT-X-VERSION":
            guard version == nil else { throw PlaylistError(line: line, "EXT-X-VERSION appears twice") }
            version = try Playlist.integerValue(of: tag, value, line: line)
        case "EXT-X-INDEPENDENT-SEGMENTS":
            independentSegments = true
        case "EXT-X-START":
            let duplicate = start != nil
            let point = metadata(tag, value, line: line) { () throws(PlaylistError) in
                if duplicate { throw PlaylistError(line: line, "EXT-X-START appears twice") }
                return try StartPoint(attributes: AttributeList(parsing: value, tag: tag, line: line))
            }
            if let point { start = point }
        case "EXT-X-SESSION-DATA":
            let data = metadata(tag, value, line: line) { () throws(PlaylistError) in
                try SessionData(attributes: AttributeList(parsing: value, tag: tag, line: line))
            }
            if let data { sessionData.append(data) }
        case "EXT-X-STREAM-INF":
            pending = (try AttributeList(parsing: value, tag: tag, line: line), line)
        case "EXT-X-MEDIA":
            renditions.append(try Rendition(attributes: AttributeList(parsing: value, tag: tag, line: line)))
        case "EXT-X-I-FRAME-STREAM-INF":
            let a = try AttributeList(parsing: value, tag: tag, line: line)
            iFrameVariants.append(IFrameVariant(
                bandwidth: try a.required("BANDWIDTH", a.decimalInteger("BANDWIDTH")),
                averageBandwidth: try a.decimalInteger("AVERAGE-BANDWIDTH"),
                codecs: try a.quotedString("CODECS"),
                resolution: try a.resolution("RESOLUTION"),
                hdcpLevel: try a.token("HDCP-LEVEL"),
                video: try a.quotedString("VIDEO"),
                uri: try a.required("URI", a.quotedString("URI"))))
        case "EXT-X-SESSION-KEY":
            let a = try AttributeList(parsing: value, tag: tag, line: line)
            guard let key = try EncryptionKey(attributes: a) else {
                throw PlaylistError(line: line, "EXT-X-SESSION-KEY cannot have METHOD=NONE")
            }
            sessionKeys.append(key)
        default:
            unknownTags.append(UnknownTag.line(name: tag, value: value))
        }
    }

    /// Reads a metadata tag with `read`; when that throws, the problem becomes a warning
    /// and the line is kept as written in `unknownTags`.
    private mutating func metadata<T>(
        _ tag: String, _ value: String?, line: Int, _ read: () throws(PlaylistError) -> T
    ) -> T? {
        do {
            return try read()
        } catch {
            warnings.append(.unread(tag, error))
            unknownTags.append(UnknownTag.line(name: tag, value: value))
            return nil
        }
    }

    private static func variant(_ a: AttributeList, uri: String, line: Int) throws(PlaylistError) -> Variant {
        Variant(
            bandwidth: try a.required("BANDWIDTH", a.decimalInteger("BANDWIDTH")),
            averageBandwidth: try a.decimalInteger("AVERAGE-BANDWIDTH"),
            codecs: try a.quotedString("CODECS"),
            resolution: try a.resolution("RESOLUTION"),
            frameRate: try a.float("FRAME-RATE"),
            hdcpLevel: try a.token("HDCP-LEVEL"),
            audio: try a.quotedString("AUDIO"),
            video: try a.quotedString("VIDEO"),
            subtitles: try a.quotedString("SUBTITLES"),
            closedCaptions: try closedCaptions(a),
            uri: uri)
    }

    /// CLOSED-CAPTIONS: a quoted GROUP-ID, or the enumerated string NONE.
    private static func closedCaptions(_ a: AttributeList) throws(PlaylistError) -> ClosedCaptions? {
        guard let value = a.raw("CLOSED-CAPTIONS") else { return nil }
        if value.isQuoted { return .group(value.text) }
        guard value.text == "NONE" else {
            throw PlaylistError(
                line: a.line, "EXT-X-STREAM-INF CLOSED-CAPTIONS must be a quoted GROUP-ID or NONE, not '\(PlaylistError.excerpt(value.text))'")
        }
        return ClosedCaptions.none
    }
}
