import Foundation

/// A master playlist: its variants and renditions, and the choice of what to download.
struct MasterPlaylist {
    /// An `#EXT-X-STREAM-INF` and the URI line after it.
    struct Variant {
        var attributes: [String: String]
        var uri: String
        var line: String
    }
    /// An `#EXT-X-MEDIA`.
    struct Rendition {
        var attributes: [String: String]
        var line: String
    }
    /// One playlist chosen for download: `video`, `audio_fr`, `subs_de`…
    struct Choice {
        var selection: String
        var uri: String
        var line: String
    }

    static let videoCodecs: Set<String> = ["avc1", "avc3", "hvc1", "hev1", "dvh1", "dvhe", "dva1", "dvav", "av01", "vp09", "vp08", "mp4v"]

    var variants: [Variant] = []
    var renditions: [Rendition] = []
    var lines: [String]

    init(text: String) throws(PlaylistError) {
        lines = try HLS.lines(text)
        for (number, line) in lines.enumerated() {
            if line.hasPrefix("#EXT-X-MEDIA:") {
                renditions.append(Rendition(attributes: HLS.attributes(Self.value(of: line)), line: line))
            } else if line.hasPrefix("#EXT-X-STREAM-INF:") {
                guard let uri = lines[(number + 1)...].first(where: { !$0.hasPrefix("#") }) else {
                    throw PlaylistError("#EXT-X-STREAM-INF without a URI line")
                }
                variants.append(Variant(attributes: HLS.attributes(Self.value(of: line)), uri: uri, line: line))
            }
        }
        guard !variants.isEmpty else { throw PlaylistError("the master playlist names no variant") }
    }

    private static func value(of line: String) -> String {
        guard let colon = line.firstIndex(of: ":") else { return "" }
        return String(line[line.index(after: colon)...])
    }

    private static func hasVideo(_ variant: Variant) -> Bool {
        if variant.attributes["RESOLUTION"] != nil { return true }
        return (variant.attributes["CODECS"] ?? "").split(separator: ",").contains { codec in
            let family = codec.trimmingCharacters(in: .whitespaces).split(separator: ".").first.map { $0.lowercased() } ?? ""
            return videoCodecs.contains(family)
        }
    }

    /// What to download: the lowest-BANDWIDTH variant with video and, of its AUDIO and
    /// SUBTITLES groups, the renditions in the languages asked for (none asked: the
    /// DEFAULT=YES one, else the first). Video first.
    func select(audioLanguages: [String], subtitleLanguages: [String]) throws(PlaylistError) -> [Choice] {
        let ladder = variants.filter(Self.hasVideo).sorted {
            Int($0.attributes["BANDWIDTH"] ?? "") ?? 0 < Int($1.attributes["BANDWIDTH"] ?? "") ?? 0
        }
        guard let variant = ladder.first else { throw PlaylistError("no variant has video") }
        var chosen = [Choice(selection: "video", uri: variant.uri, line: variant.line)]
        let groups = [("AUDIO", "audio", audioLanguages), ("SUBTITLES", "subs", subtitleLanguages)]
        for (type, prefix, languages) in groups {
            for rendition in try pick(type: type, group: variant.attributes[type], languages: languages) {
                guard let uri = rendition.attributes["URI"] else { continue }
                let language = rendition.attributes["LANGUAGE"] ?? rendition.attributes["NAME"] ?? "x"
                chosen.append(Choice(selection: "\(prefix)_\(language)", uri: uri, line: rendition.line))
            }
        }
        return chosen
    }

    private func pick(type: String, group: String?, languages: [String]) throws(PlaylistError) -> [Rendition] {
        guard let group else { return [] }
        let candidates = renditions.filter { $0.attributes["TYPE"] == type && $0.attributes["GROUP-ID"] == group }
        if languages.isEmpty {
            let chosen = candidates.first { $0.attributes["DEFAULT"] == "YES" } ?? candidates.first
            return chosen.map { [$0] } ?? []
        }
        var chosen: [Rendition] = []
        for language in languages {
            guard let match = candidates.first(where: { ($0.attributes["LANGUAGE"] ?? "").lowercased() == language.lowercased() }) else {
                let available = candidates.map { $0.attributes["LANGUAGE"] ?? "?" }.joined(separator: ", ")
                throw PlaylistError("no \(type) rendition in language \(language); available: \(available.isEmpty ? "none" : available)")
            }
            if !chosen.contains(where: { $0.line == match.line }) { chosen.append(match) }
        }
        return chosen
    }

    /// The group attributes of a variant, each named as the TYPE of the renditions it names.
    static let groupTypes = ["AUDIO", "VIDEO", "SUBTITLES", "CLOSED-CAPTIONS"]

    /// The package's master playlist: the original's header tags, the chosen variant and
    /// renditions, and the renditions with no URI (no file: carried in the variant's own
    /// segments, closed captions…) of the groups the variant names, so that every group
    /// it names is defined; a group left with no rendition is dropped from the variant.
    /// No I-frame playlist (none is downloaded, as Deadzone's engine does), and a session
    /// key only when `keepsSessionKey` says its URI is in the package. URIs unchanged (the
    /// package mirrors the origin's layout below the master's directory).
    func packageText(keeping chosen: [Choice], keepsSessionKey: (String) -> Bool) -> String {
        let keep = Set(chosen.map(\.line))
        let variant = variants.first { keep.contains($0.line) }
        let named = Self.groupTypes.compactMap { type in variant?.attributes[type].map { (type: type, group: $0) } }
        let kept = renditions.filter { rendition in
            keep.contains(rendition.line) || (rendition.attributes["URI"] == nil && named.contains {
                $0.type == rendition.attributes["TYPE"] && $0.group == rendition.attributes["GROUP-ID"]
            })
        }
        let undefined = Self.groupTypes.filter { type in
            guard let group = variant?.attributes[type], !(type == "CLOSED-CAPTIONS" && group == "NONE") else { return false }
            return !kept.contains { $0.attributes["TYPE"] == type && $0.attributes["GROUP-ID"] == group }
        }
        let keptLines = Set(kept.map(\.line))
        var out: [String] = []
        var skipURI = false
        for line in lines {
            if skipURI && !line.hasPrefix("#") {
                skipURI = false
                continue
            }
            if line.hasPrefix("#EXT-X-MEDIA:") {
                if keptLines.contains(line) { out.append(line) }
            } else if line.hasPrefix("#EXT-X-I-FRAME-STREAM-INF:") {
                continue
            } else if line.hasPrefix("#EXT-X-STREAM-INF:") {
                if line != variant?.line {
                    skipURI = true
                } else {
                    out.append(undefined.isEmpty ? line : HLS.rewriting(line, removing: Set(undefined)))
                }
            } else if line.hasPrefix("#EXT-X-SESSION-KEY:") {
                if keepsSessionKey(HLS.attributes(Self.value(of: line))["URI"] ?? "") { out.append(line) }
            } else {
                out.append(line)
            }
        }
        return out.joined(separator: "\n") + "\n"
    }
}
