import Foundation

/// A VOD media playlist: its segments, each with the key this downloader decrypts it
/// with (`skd:`, else `identity`), or none when clear.
struct MediaPlaylist {
    /// One segment: its URI line and the key that applies to it.
    struct Segment {
        var uri: String
        /// The key's attributes (`METHOD`, `URI`…), nil when the segment is clear.
        var key: [String: String]?
    }

    var segments: [Segment] = []

    init(text: String) throws(PlaylistError) {
        let lines = try HLS.lines(text)
        var keys: [String: [String: String]] = [:]
        var pending = false
        for line in lines {
            if line.hasPrefix("#EXT-X-KEY:") {
                let key = HLS.attributes(String(line.dropFirst("#EXT-X-KEY:".count)))
                if key["METHOD"] == "NONE" {
                    keys = [:]
                } else {
                    keys[key["KEYFORMAT"] ?? "identity"] = key
                }
            } else if line.hasPrefix("#EXT-X-BYTERANGE") || line.hasPrefix("#EXT-X-MAP") {
                throw PlaylistError("\(line.split(separator: ":").first ?? "") is not supported by this downloader")
            } else if line.hasPrefix("#EXTINF") {
                pending = true
            } else if !line.hasPrefix("#") {
                guard pending else { throw PlaylistError("segment \(line) has no #EXTINF") }
                segments.append(Segment(uri: line, key: try Self.supportedKey(keys, segment: line)))
                pending = false
            }
        }
        guard lines.contains("#EXT-X-ENDLIST") else {
            throw PlaylistError("not a VOD playlist (no #EXT-X-ENDLIST): live streams cannot be downloaded")
        }
    }

    private static func supportedKey(_ keys: [String: [String: String]], segment: String) throws(PlaylistError) -> [String: String]? {
        guard !keys.isEmpty else { return nil }
        if let skd = keys.values.first(where: { ($0["URI"] ?? "").lowercased().hasPrefix("skd:") }) { return skd }
        if let identity = keys["identity"] { return identity }
        throw PlaylistError("segment \(segment): no supported key among the formats \(keys.keys.sorted())")
    }
}
