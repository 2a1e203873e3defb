import HLSPlaylist

/// What to download from a master playlist: one variant and the alternate renditions
/// that go with it.
public struct MediaSelection: Sendable, Hashable {
    /// The variant whose media playlist is downloaded.
    public var variant: Variant
    /// The chosen renditions of the variant's AUDIO group (empty when it has none).
    public var audio: [Rendition]
    /// The chosen renditions of the variant's SUBTITLES group (empty when it has none).
    public var subtitles: [Rendition]

    /// Creates a selection.
    public init(variant: Variant, audio: [Rendition] = [], subtitles: [Rendition] = []) {
        self.variant = variant
        self.audio = audio
        self.subtitles = subtitles
    }
}

/// Why nothing could be selected; says what the caller can do.
public enum VariantSelectionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No variant has video (all are audio-only, or say nothing of their media).
    case noVideoVariant
    /// No rendition of `type` in the variant's group has `language`.
    case languageNotFound(type: Rendition.MediaType, language: String, available: [String])

    /// One sentence for people.
    public var description: String {
        switch self {
        case .noVideoVariant:
            "no variant has video (RESOLUTION, or a video codec in CODECS); the presentation cannot be downloaded"
        case let .languageNotFound(type, language, available):
            "no \(type.rawValue) rendition has LANGUAGE \"\(language)\"; available: "
                + (available.isEmpty ? "none" : available.joined(separator: ", "))
        }
    }
}

/// The engine's variant and rendition rules, as pure functions over a parsed
/// `MasterPlaylist`. Called by the download manager when a download is requested
/// and by `variants(for:)`; safe on any thread.
public enum VariantSelection {
    /// RFC 6381 sample-entry codes of video formats that HLS carries.
    static let videoCodecs: Set<String> = [
        "avc1", "avc3", "hvc1", "hev1", "dvh1", "dvhe", "dva1", "dvav", "av01", "vp09", "vp08", "mp4v",
    ]

    /// Whether `variant` has video: it has a RESOLUTION, or CODECS names a video codec.
    /// A variant with neither is taken for audio-only.
    public static func hasVideo(_ variant: Variant) -> Bool {
        if variant.resolution != nil { return true }
        return variant.codecList.contains { format in
            let code = format.split(separator: ".", maxSplits: 1).first.map { $0.lowercased() } ?? ""
            return videoCodecs.contains(code)
        }
    }

    /// The variants with video, by ascending BANDWIDTH (ties keep playlist order).
    public static func videoVariants(of master: MasterPlaylist) -> [Variant] {
        master.variants.enumerated()
            .filter { hasVideo($0.element) }
            .sorted { ($0.element.bandwidth, $0.offset) < ($1.element.bandwidth, $1.offset) }
            .map(\.element)
    }

    /// The variant to download.
    ///
    /// - No `bitrate`: the lowest-BANDWIDTH variant with video.
    /// - A `bitrate` in bits per second: the first video variant, by ascending
    ///   BANDWIDTH, whose BANDWIDTH is at least `bitrate`; else the highest.
    ///
    /// Audio-only variants are never chosen.
    public static func variant(in master: MasterPlaylist, bitrate: Int? = nil) throws(VariantSelectionError) -> Variant {
        let ladder = videoVariants(of: master)
        guard let lowest = ladder.first, let highest = ladder.last else { throw .noVideoVariant }
        guard let bitrate else { return lowest }
        return ladder.first { $0.bandwidth >= bitrate } ?? highest
    }

    /// The variant chosen by `variant(in:bitrate:)` and its renditions.
    ///
    /// For each of the variant's AUDIO and SUBTITLES groups: with no languages asked
    /// for, the DEFAULT=YES rendition, else the group's first; with languages, one
    /// rendition per language, in the order asked. Languages match LANGUAGE exactly,
    /// ignoring case (`en` does not match `en-US`). Asking for a language the variant's
    /// group lacks (or for any language when the variant has no such group) throws.
    public static func select(
        from master: MasterPlaylist, bitrate: Int? = nil, audioLanguages: [String] = [], subtitleLanguages: [String] = []
    ) throws(VariantSelectionError) -> MediaSelection {
        let chosen = try variant(in: master, bitrate: bitrate)
        return MediaSelection(
            variant: chosen,
            audio: try renditions(.audio, group: chosen.audio, in: master, languages: audioLanguages),
            subtitles: try renditions(.subtitles, group: chosen.subtitles, in: master, languages: subtitleLanguages))
    }

    /// The renditions of `type` in `group` for `languages`; see `select`.
    public static func renditions(
        _ type: Rendition.MediaType, group: String?, in master: MasterPlaylist, languages: [String]
    ) throws(VariantSelectionError) -> [Rendition] {
        let candidates = group.map { master.renditions(ofType: type, inGroup: $0) } ?? []
        guard !languages.isEmpty else {
            return (candidates.first(where: \.isDefault) ?? candidates.first).map { [$0] } ?? []
        }
        var chosen: [Rendition] = []
        for language in languages {
            guard let match = candidates.first(where: { $0.language?.lowercased() == language.lowercased() }) else {
                throw .languageNotFound(type: type, language: language, available: candidates.compactMap(\.language))
            }
            if !chosen.contains(match) { chosen.append(match) }
        }
        return chosen
    }
}
