extension MasterPlaylist {
    /// Writes the playlist as RFC 8216 text, `#EXTM3U` first, one tag per line, ending
    /// with a newline. `MasterPlaylist.parse(render())` gives back an equal value for any
    /// playlist the parser produced (`"` and control characters in strings are replaced).
    /// Unknown tags come after the header tags, before EXT-X-SESSION-DATA.
    public func render() -> String {
        var lines = ["#EXTM3U"]
        if let version { lines.append("#EXT-X-VERSION:\(version)") }
        if independentSegments { lines.append("#EXT-X-INDEPENDENT-SEGMENTS") }
        if let start { lines.append("#EXT-X-START:\(start.attributeText)") }
        lines += UnknownTag.writable(unknownTags)
        for data in sessionData { lines.append("#EXT-X-SESSION-DATA:\(data.attributeText)") }
        for key in sessionKeys { lines.append("#EXT-X-SESSION-KEY:\(key.attributeText)") }
        for rendition in renditions { lines.append("#EXT-X-MEDIA:\(rendition.attributeText)") }
        for variant in variants {
            var w = AttributeWriter()
            w.integer("BANDWIDTH", variant.bandwidth)
            w.integer("AVERAGE-BANDWIDTH", variant.averageBandwidth)
            w.resolution("RESOLUTION", variant.resolution)
            w.float("FRAME-RATE", variant.frameRate)
            w.quoted("CODECS", variant.codecs)
            w.enumerated("HDCP-LEVEL", variant.hdcpLevel)
            w.quoted("AUDIO", variant.audio)
            w.quoted("VIDEO", variant.video)
            w.quoted("SUBTITLES", variant.subtitles)
            switch variant.closedCaptions {
            case nil: break
            case .none?: w.enumerated("CLOSED-CAPTIONS", "NONE")
            case .group(let group)?: w.quoted("CLOSED-CAPTIONS", group)
            }
            lines.append("#EXT-X-STREAM-INF:\(w.text)")
            lines.append(Playlist.uriLine(variant.uri))
        }
        for variant in iFrameVariants {
            var w = AttributeWriter()
            w.integer("BANDWIDTH", variant.bandwidth)
            w.integer("AVERAGE-BANDWIDTH", variant.averageBandwidth)
            w.resolution("RESOLUTION", variant.resolution)
            w.quoted("CODECS", variant.codecs)
            w.enumerated("HDCP-LEVEL", variant.hdcpLevel)
            w.quoted("VIDEO", variant.video)
            w.quoted("URI", variant.uri)
            lines.append("#EXT-X-I-FRAME-STREAM-INF:\(w.text)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
