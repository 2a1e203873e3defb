extension MediaPlaylist {
    /// Writes the playlist as RFC 8216 text, `#EXTM3U` first, ending with a newline.
    ///
    /// EXT-X-KEY and EXT-X-MAP are written only where they change; byte ranges are written
    /// with explicit offsets. `MediaPlaylist.parse(render())` gives back an equal value for
    /// any playlist the parser produced. Not representable (so not round-tripping): a
    /// segment without a map after one with a map, and strings holding `"` or control characters.
    public func render() -> String {
        var lines = ["#EXTM3U"]
        if let version { lines.append("#EXT-X-VERSION:\(version)") }
        lines.append("#EXT-X-TARGETDURATION:\(targetDuration)")
        lines.append("#EXT-X-MEDIA-SEQUENCE:\(mediaSequence)")
        if let playlistType { lines.append("#EXT-X-PLAYLIST-TYPE:\(playlistType.rawValue)") }
        if independentSegments { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        var key: EncryptionKey?
        var map: MediaInitializationSection?
        for segment in segments {
            if segment.discontinuity { lines.append("#EXT-X-DISCONTINUITY") }
            if segment.key != key {
                lines.append("#EXT-X-KEY:" + (segment.key?.attributeText ?? "METHOD=NONE"))
                key = segment.key
            }
            if let segmentMap = segment.map, segmentMap != map {
                var w = AttributeWriter()
                w.quoted("URI", segmentMap.uri)
                w.quoted("BYTERANGE", segmentMap.byteRange?.description)
                lines.append("#EXT-X-MAP:\(w.text)")
                map = segmentMap
            }
            let title = segment.title.replacingLineBreaks()
            lines.append("#EXTINF:\(Scalars.decimal(segment.duration)),\(title)")
            if let range = segment.byteRange { lines.append("#EXT-X-BYTERANGE:\(range)") }
            lines.append(Playlist.uriLine(segment.uri))
        }
        if endList { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
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
