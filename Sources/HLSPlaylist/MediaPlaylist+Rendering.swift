extension MediaPlaylist {
    /// Writes the playlist as RFC 8216 text, `#EXTM3U` first, ending with a newline.
    ///
    /// Header tags come first (EXT-X-SKIP after them), then each segment's tags:
    /// EXT-X-DISCONTINUITY, EXT-X-PROGRAM-DATE-TIME, EXT-X-DATERANGE, EXT-X-KEY (only
    /// where the keys change: every key of the new set, after METHOD=NONE when the set of
    /// KEYFORMATs changes), EXT-X-MAP (where it changes), unknown tags, EXTINF, an
    /// EXT-X-BYTERANGE with an explicit offset, the URI. `MediaPlaylist.parse(render())`
    /// gives back an equal value for any playlist the parser produced. Not representable
    /// (so not round-tripping): a segment without a map after one with a map, two keys
    /// of one KEYFORMAT on a segment, unknown tags that do not start `#EXT`, and strings
    /// holding `"` or control characters.
    public func render() -> String {
        var lines = ["#EXTM3U"]
        if let version { lines.append("#EXT-X-VERSION:\(version)") }
        lines.append("#EXT-X-TARGETDURATION:\(targetDuration)")
        lines.append("#EXT-X-MEDIA-SEQUENCE:\(mediaSequence)")
        if discontinuitySequence != 0 { lines.append("#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence)") }
        if let playlistType { lines.append("#EXT-X-PLAYLIST-TYPE:\(playlistType.rawValue)") }
        if iFramesOnly { lines.append("#EXT-X-I-FRAMES-ONLY") }
        if independentSegments { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        if let start { lines.append("#EXT-X-START:\(start.attributeText)") }
        if let skip { lines.append("#EXT-X-SKIP:\(skip.attributeText)") }
        var keys: [EncryptionKey] = []
        var map: MediaInitializationSection?
        for segment in segments {
            if segment.discontinuity { lines.append("#EXT-X-DISCONTINUITY") }
            if let date = segment.programDateTime { lines.append("#EXT-X-PROGRAM-DATE-TIME:\(date.replacingLineBreaks())") }
            for range in segment.dateRanges { lines.append("#EXT-X-DATERANGE:\(range.attributeText)") }
            if segment.keys != keys {
                lines += Self.keyLines(from: keys, to: segment.keys)
                keys = segment.keys
            }
            if let segmentMap = segment.map, segmentMap != map {
                var w = AttributeWriter()
                w.quoted("URI", segmentMap.uri)
                w.quoted("BYTERANGE", segmentMap.byteRange?.description)
                lines.append("#EXT-X-MAP:\(w.text)")
                map = segmentMap
            }
            lines += UnknownTag.writable(segment.unknownTags)
            let title = segment.title.replacingLineBreaks()
            lines.append("#EXTINF:\(Scalars.decimal(segment.duration)),\(title)")
            if let range = segment.byteRange { lines.append("#EXT-X-BYTERANGE:\(range)") }
            lines.append(Playlist.uriLine(segment.uri))
        }
        for range in trailingDateRanges { lines.append("#EXT-X-DATERANGE:\(range.attributeText)") }
        lines += UnknownTag.writable(trailingTags)
        if endList { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The EXT-X-KEY lines that turn the keys in effect from `old` into `new`: a key
    /// replaces the one of its KEYFORMAT, so the new set is written whole, after
    /// METHOD=NONE (which ends every key) unless it has the same KEYFORMATs in the same order.
    static func keyLines(from old: [EncryptionKey], to new: [EncryptionKey]) -> [String] {
        var lines: [String] = []
        if new.isEmpty || (!old.isEmpty && old.map(\.format) != new.map(\.format)) {
            lines.append("#EXT-X-KEY:METHOD=NONE")
        }
        lines += new.map { "#EXT-X-KEY:\($0.attributeText)" }
        return lines
    }
}

extension String {
    /// Self with control characters (CR, LF, …) replaced by spaces, so it stays one valid line.
    func replacingLineBreaks() -> String {
        var out = String.UnicodeScalarView()
        for scalar in unicodeScalars {
            out.append(PlaylistLines.isForbiddenControl(scalar) ? " " : scalar)
        }
        return String(out)
    }
}
