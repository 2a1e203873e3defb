import Foundation

/// A playlist this downloader cannot use; the message says why.
struct PlaylistError: Error, CustomStringConvertible {
    var description: String
    init(_ why: String) { description = why }
}

/// HLS playlists, just enough for an offline downloader (an RFC 8216 subset): parse a
/// master playlist, choose what to download, parse a media playlist into its segments and
/// keys, and write the package's master playlist naming only what was downloaded.
enum HLS {
    /// A tag's attribute list, `A=1,B="x,y"` → `["A": "1", "B": "x,y"]` (quotes removed).
    static func attributes(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var rest = Substring(text)
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces)
            rest = rest[rest.index(after: equals)...]
            var value: Substring
            if rest.first == "\"" {
                let body = rest.dropFirst()
                let close = body.firstIndex(of: "\"") ?? body.endIndex
                value = body[..<close]
                rest = close < body.endIndex ? body[body.index(after: close)...] : body[close...]
                if let comma = rest.firstIndex(of: ",") { rest = rest[rest.index(after: comma)...] } else { rest = rest[rest.endIndex...] }
            } else {
                let comma = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<comma]
                rest = comma < rest.endIndex ? rest[rest.index(after: comma)...] : rest[comma...]
            }
            result[name] = String(value)
        }
        return result
    }

    /// The non-blank lines of a playlist, trimmed; the first must be `#EXTM3U`.
    static func lines(_ text: String) throws(PlaylistError) -> [String] {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard lines.first?.hasPrefix("#EXTM3U") == true else { throw PlaylistError("not an HLS playlist (no #EXTM3U first line)") }
        return lines
    }

    /// Whether a body starts like a playlist (after a byte order mark and whitespace): a
    /// captive portal may label its page anything.
    static func looksLikePlaylist(_ data: Data) -> Bool {
        let text = String(decoding: data.prefix(64), as: UTF8.self)
        return text.drop { $0 == "\u{FEFF}" || $0.isWhitespace }.hasPrefix("#EXTM3U")
    }

    /// Whether a key URI names a resource to store (`skd:` keys come from the license, `data:` ones are inline).
    static func isFetchedKey(_ uri: String) -> Bool {
        let scheme = uri.split(separator: ":", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        return scheme != "skd" && scheme != "data"
    }

    /// Where a resource lives in the package: its path relative to the master's directory.
    /// A resource outside it is refused (this downloader does not rewrite URIs).
    static func localPath(master: URL, resource: URL) throws(PlaylistError) -> String {
        let base = master.deletingLastPathComponent()
        guard resource.scheme == base.scheme, resource.host == base.host, resource.port == base.port,
              resource.path.hasPrefix(base.path.hasSuffix("/") ? base.path : base.path + "/")
        else { throw PlaylistError("\(resource.absoluteString) is outside the master playlist's directory") }
        let prefix = base.path.hasSuffix("/") ? base.path : base.path + "/"
        let relative = String(resource.path.dropFirst(prefix.count))
        guard !relative.isEmpty, !relative.split(separator: "/").contains("..") else {
            throw PlaylistError("\(resource.absoluteString) has no safe local name")
        }
        return relative
    }

    /// `uri` resolved against `base`, as a player resolves it.
    static func resolve(_ uri: String, against base: URL) throws(PlaylistError) -> URL {
        guard let url = URL(string: uri, relativeTo: base)?.absoluteURL else { throw PlaylistError("\(uri) is not a URI") }
        return url
    }
}
