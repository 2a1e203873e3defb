import Foundation

/// A VOD media playlist: its segments, each with its byte range, its init section and the
/// key this downloader decrypts it with (`skd:`, else `identity`), or none when clear;
/// and its package copy, in which every byte range is a file of its own.
struct MediaPlaylist {
    /// An init section (`EXT-X-MAP`): it applies to the segments after it until the next.
    struct Map {
        var uri: String
        /// Its range of the resource; nil for the whole resource.
        var byteRange: ByteRange?
        /// The key in effect where it is declared (it may be encrypted with it).
        var key: [String: String]?
        /// Its line, an index of `lines`.
        var line: Int
    }

    /// One segment: its URI line, its byte range, its init section and the key that applies to it.
    struct Segment {
        var uri: String
        /// Its range of the resource (`EXT-X-BYTERANGE`); nil for the whole resource.
        var byteRange: ByteRange?
        /// The key's attributes (`METHOD`, `URI`…), nil when the segment is clear.
        var key: [String: String]?
        var map: Map?
        /// Its URI line, an index of `lines`.
        var line: Int
    }

    var segments: [Segment] = []
    /// The playlist's non-blank lines, trimmed.
    let lines: [String]

    init(text: String) throws(PlaylistError) {
        lines = try HLS.lines(text)
        var keys: [String: [String: String]] = [:]
        var pending = false
        var byteRange: String?  // the EXT-X-BYTERANGE of the next URI line
        var map: Map?
        for (number, line) in lines.enumerated() {
            if line.hasPrefix("#EXT-X-KEY:") {
                let key = HLS.attributes(String(line.dropFirst("#EXT-X-KEY:".count)))
                if key["METHOD"] == "NONE" {
                    keys = [:]
                } else {
                    keys[key["KEYFORMAT"] ?? "identity"] = key
                }
            } else if line.hasPrefix("#EXT-X-BYTERANGE:") {
                byteRange = String(line.dropFirst("#EXT-X-BYTERANGE:".count))
            } else if line.hasPrefix("#EXT-X-MAP:") {
                let attributes = HLS.attributes(String(line.dropFirst("#EXT-X-MAP:".count)))
                guard let uri = attributes["URI"] else { throw PlaylistError("\(line) has no URI") }
                let range = try ByteRange.parse(attributes["BYTERANGE"], continuing: 0)
                map = Map(uri: uri, byteRange: range, key: try Self.supportedKey(keys, segment: uri), line: number)
            } else if line.hasPrefix("#EXTINF") {
                pending = true
            } else if !line.hasPrefix("#") {
                guard pending else { throw PlaylistError("segment \(line) has no #EXTINF") }
                let previous = segments.last.flatMap { $0.uri == line ? $0.byteRange?.end : nil }
                segments.append(Segment(
                    uri: line, byteRange: try ByteRange.parse(byteRange, continuing: previous),
                    key: try Self.supportedKey(keys, segment: line), map: map, line: number))
                pending = false
                byteRange = nil
            }
        }
        guard lines.contains("#EXT-X-ENDLIST") else {
            throw PlaylistError("not a VOD playlist (no #EXT-X-ENDLIST): live streams cannot be downloaded")
        }
    }

    /// The package's copy: the same lines, except that no `EXT-X-BYTERANGE` is left and
    /// each line of `localURIs` (by index: a byte-range segment's URI line, or an
    /// `EXT-X-MAP` with a `BYTERANGE`) names the package file holding that range instead.
    func packageText(localURIs: [Int: String]) -> String {
        var out: [String] = []
        for (number, line) in lines.enumerated() where !line.hasPrefix("#EXT-X-BYTERANGE:") {
            guard let local = localURIs[number] else {
                out.append(line)
                continue
            }
            out.append(line.hasPrefix("#") ? HLS.rewriting(line, replacing: ["URI": "\"\(local)\""], removing: ["BYTERANGE"]) : local)
        }
        return out.joined(separator: "\n") + "\n"
    }

    private static func supportedKey(_ keys: [String: [String: String]], segment: String) throws(PlaylistError) -> [String: String]? {
        guard !keys.isEmpty else { return nil }
        if let skd = keys.values.first(where: { ($0["URI"] ?? "").lowercased().hasPrefix("skd:") }) { return skd }
        if let identity = keys["identity"] { return identity }
        throw PlaylistError("segment \(segment): no supported key among the formats \(keys.keys.sorted())")
    }
}
