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
        for (name, written) in attributeList(text) {
            result[name] = written.hasPrefix("\"") ? String(written.dropFirst().prefix { $0 != "\"" }) : written
        }
        return result
    }

    /// A tag's attribute list as written, in order: `A=1,B="x,y"` → `[("A", "1"), ("B", "\"x,y\"")]`.
    static func attributeList(_ text: String) -> [(name: String, written: String)] {
        var result: [(name: String, written: String)] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces)
            rest = rest[rest.index(after: equals)...]
            let end: Substring.Index
            if rest.first == "\"" {  // to the closing quote; anything after it up to the comma is dropped
                let body = rest.dropFirst()
                end = body.firstIndex(of: "\"").map { body.index(after: $0) } ?? body.endIndex
            } else {
                end = rest.firstIndex(of: ",") ?? rest.endIndex
            }
            result.append((name, String(rest[..<end])))
            let comma = rest[end...].firstIndex(of: ",")
            rest = comma.map { rest[rest.index(after: $0)...] } ?? rest[rest.endIndex...]
        }
        return result
    }

    /// A tag `line` with its attribute list changed: each attribute of `replacing` takes
    /// that value as written (quotes included; added at the end when absent), each of
    /// `removing` goes; the others stay as written, in their order.
    static func rewriting(_ line: String, replacing: [String: String] = [:], removing: Set<String> = []) -> String {
        guard let colon = line.firstIndex(of: ":") else { return line }
        var list = attributeList(String(line[line.index(after: colon)...])).filter { !removing.contains($0.name) }
        for (name, value) in replacing.sorted(by: { $0.key < $1.key }) {
            if let index = list.firstIndex(where: { $0.name == name }) { list[index].written = value } else { list.append((name, value)) }
        }
        return String(line[...colon]) + list.map { "\($0.name)=\($0.written)" }.joined(separator: ",")
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

    /// The URI a playlist at package path `playlist` names the file at package path `file`
    /// by: a relative path (`..` where needed), percent-encoded.
    static func relativeURI(from playlist: String, to file: String) -> String {
        var base = playlist.split(separator: "/").dropLast()[...]
        var target = file.split(separator: "/")[...]
        while target.count > 1, let first = base.first, first == target.first {
            base = base.dropFirst()
            target = target.dropFirst()
        }
        let path = (Array(repeating: "..", count: base.count) + target.map(String.init)).joined(separator: "/")
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        return encoded.split(separator: "/").first?.contains(":") == true ? "./" + encoded : encoded  // never read as a scheme
    }

    /// `uri` resolved against `base`, as a player resolves it.
    static func resolve(_ uri: String, against base: URL) throws(PlaylistError) -> URL {
        guard let url = URL(string: uri, relativeTo: base)?.absoluteURL else { throw PlaylistError("\(uri) is not a URI") }
        return url
    }
}
