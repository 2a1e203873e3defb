import BenchCore
import Foundation
import HLSPlaylist

/// What one playlist names, for the recorder: each resource to fetch with its kind and
/// the line that names it, the key URIs a license server answers for (`skd://`), and
/// the media duration. Pure: it reads the playlist's text, never the network.
struct PlaylistReferences: Hashable, Sendable {
    /// A resource a playlist names.
    struct Reference: Hashable, Sendable {
        /// The URI resolved against the playlist's URL (after its redirects).
        var url: URL
        /// What it is.
        var kind: RecordedResource.Kind
        /// The 1-based line of the playlist that names it.
        var line: Int
    }

    /// Whether it is a master playlist.
    var isMaster: Bool
    /// Every resource it names, each once, in the order first named.
    var references: [Reference]
    /// The key URIs no recorder can fetch (`skd://`, `data:`…), each once.
    var licenseKeys: [String]
    /// `clear`, `aes-128` or `sample-aes`: the strongest method its keys name.
    var protection: String
    /// A media playlist's duration in seconds (0 for a master).
    var duration: Double

    /// Reads `data`, the playlist fetched from `url` (its final URL, after redirects;
    /// relative URIs resolve against it). `kind` is what the referring playlist called
    /// it: a subtitles rendition's segments are `subtitles`, an I-frame playlist's are
    /// segments like any other.
    /// - Throws: `RecordError.unreadablePlaylist` when it does not parse,
    ///   `.livePlaylist` for a media playlist with no EXT-X-ENDLIST, `.unsupported` for
    ///   a URI that cannot be resolved or a key method it does not know.
    init(_ data: Data, from url: URL, kind: RecordedResource.Kind) throws(RecordError) {
        let playlist: Playlist
        do { playlist = try Playlist.parse(data) } catch {
            throw .unreadablePlaylist(url: url.absoluteString, reason: error.description)
        }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
        var collector = Collector(base: url, lines: lines)
        switch playlist {
        case .master(let master):
            isMaster = true
            duration = 0
            // A variant's URI is the line after its EXT-X-STREAM-INF.
            for variant in master.variants { try collector.add(variant.uri, .media, near: nil) }
            for variant in master.iFrameVariants { try collector.add(variant.uri, .iframes, near: "#EXT-X-I-FRAME-STREAM-INF") }
            for rendition in master.renditions {
                guard let uri = rendition.uri else { continue }
                try collector.add(uri, rendition.type == .subtitles ? .subtitles : .media, near: "#EXT-X-MEDIA")
            }
            for key in master.sessionKeys { try collector.key(key, near: "#EXT-X-SESSION-KEY") }
        case .media(let media):
            isMaster = false
            guard media.endList else {
                throw .livePlaylist(url: url.absoluteString, lastLine: lines.lastIndex { !$0.isEmpty }.map { $0 + 1 } ?? 0)
            }
            duration = media.totalDuration
            let segmentKind: RecordedResource.Kind = kind == .subtitles ? .subtitles : .segment
            for segment in media.segments {
                for key in segment.keys { try collector.key(key, near: "#EXT-X-KEY") }
                if let map = segment.map { try collector.add(map.uri, .initSection, near: "#EXT-X-MAP") }
                try collector.add(segment.uri, segmentKind, near: nil)
            }
        }
        references = collector.references
        licenseKeys = collector.licenseKeys
        protection = collector.protection
    }

    /// Gathers references in order, each once, with the line that names it.
    private struct Collector {
        let base: URL
        let lines: [String]
        var references: [Reference] = []
        var licenseKeys: [String] = []
        var protection = "clear"
        private var seen: Set<String> = []
        /// Where the search for the next line naming a URI starts, per tag: the lines
        /// are met in order, so the n-th reference of a tag is on or after the previous.
        private var cursor: [String: Int] = [:]

        init(base: URL, lines: [String]) {
            self.base = base
            self.lines = lines
        }

        /// The 1-based line naming `uri`: a tag line holding it in quotes, or a URI line.
        mutating func line(of uri: String, near tag: String?) -> Int {
            let key = tag ?? ""
            let start = cursor[key] ?? 0
            let index = lines.indices.dropFirst(start).first { index in
                let text = lines[index]
                if let tag { return text.hasPrefix(tag) && text.contains("\"\(uri)\"") }
                return !text.hasPrefix("#") && text.trimmingCharacters(in: .whitespaces) == uri
            }
            if let index { cursor[key] = index }
            return (index ?? 0) + 1
        }

        mutating func add(_ uri: String, _ kind: RecordedResource.Kind, near tag: String?) throws(RecordError) {
            let line = line(of: uri, near: tag)
            guard let url = resolve(uri, against: base), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                throw .unsupported(url: base.absoluteString, line: line, "names \(uri), which is not an http or https URL")
            }
            guard seen.insert(url.absoluteString).inserted else { return }
            references.append(Reference(url: url, kind: kind, line: line))
        }

        mutating func key(_ key: EncryptionKey, near tag: String) throws(RecordError) {
            let uri = key.uri
            let scheme = URL(string: uri)?.scheme?.lowercased()
            if key.method == .aes128 {
                protection = protection == "sample-aes" ? protection : "aes-128"
                try add(uri, .key, near: tag)
                return
            }
            protection = "sample-aes"
            if scheme == nil || scheme == "http" || scheme == "https" {
                try add(uri, .key, near: tag)
            } else if !licenseKeys.contains(uri) {
                // skd://, data:…: answered by a license server or carried in the playlist.
                _ = line(of: uri, near: tag)
                licenseKeys.append(uri)
            }
        }
    }
}
