/// One EXT-X-MEDIA tag: an alternate rendition such as a dubbed audio track or a
/// subtitle track (RFC 8216 §4.3.4.1).
public struct Rendition: Hashable, Sendable, Codable {
    /// TYPE of the rendition.
    public enum MediaType: String, Hashable, Sendable, Codable, CaseIterable {
        case audio = "AUDIO"
        case video = "VIDEO"
        case subtitles = "SUBTITLES"
        case closedCaptions = "CLOSED-CAPTIONS"
    }

    /// TYPE (required).
    public var type: MediaType
    /// GROUP-ID (required): what variants name in AUDIO, VIDEO or SUBTITLES.
    public var groupID: String
    /// NAME (required): a human-readable description.
    public var name: String
    /// LANGUAGE: an RFC 5646 tag such as `en` or `pt-BR`.
    public var language: String?
    /// ASSOC-LANGUAGE.
    public var associatedLanguage: String?
    /// DEFAULT=YES.
    public var isDefault: Bool
    /// AUTOSELECT=YES.
    public var autoselect: Bool
    /// FORCED=YES (subtitles only).
    public var forced: Bool
    /// INSTREAM-ID (closed captions only), e.g. `CC1`.
    public var instreamID: String?
    /// CHARACTERISTICS: comma-separated Uniform Type Identifiers, e.g.
    /// `public.accessibility.describes-video`.
    public var characteristics: String?
    /// CHANNELS (audio only), e.g. `2` or `6`.
    public var channels: String?
    /// URI of the rendition's media playlist, as written; nil when it is in the variant.
    public var uri: String?

    /// Creates a rendition.
    public init(
        type: MediaType, groupID: String, name: String, language: String? = nil,
        associatedLanguage: String? = nil, isDefault: Bool = false, autoselect: Bool = false,
        forced: Bool = false, instreamID: String? = nil, characteristics: String? = nil,
        channels: String? = nil, uri: String? = nil
    ) {
        self.characteristics = characteristics
        self.type = type
        self.groupID = groupID
        self.name = name
        self.language = language
        self.associatedLanguage = associatedLanguage
        self.isDefault = isDefault
        self.autoselect = autoselect
        self.forced = forced
        self.instreamID = instreamID
        self.channels = channels
        self.uri = uri
    }
}

extension Rendition {
    init(attributes a: AttributeList) throws(PlaylistError) {
        let typeText = try a.required("TYPE", a.enumerated("TYPE"))
        guard let type = MediaType(rawValue: typeText) else {
            throw PlaylistError(
                line: a.line,
                "EXT-X-MEDIA TYPE '\(PlaylistError.excerpt(typeText))' is not AUDIO, VIDEO, SUBTITLES or CLOSED-CAPTIONS")
        }
        self.init(
            type: type,
            groupID: try a.required("GROUP-ID", a.quotedString("GROUP-ID")),
            name: try a.required("NAME", a.quotedString("NAME")),
            language: try a.quotedString("LANGUAGE"),
            associatedLanguage: try a.quotedString("ASSOC-LANGUAGE"),
            isDefault: try a.yesNo("DEFAULT"),
            autoselect: try a.yesNo("AUTOSELECT"),
            forced: try a.yesNo("FORCED"),
            instreamID: try a.quotedString("INSTREAM-ID"),
            characteristics: try a.quotedString("CHARACTERISTICS"),
            channels: try a.quotedString("CHANNELS"),
            uri: try a.quotedString("URI"))
        if type == .subtitles, uri == nil {
            throw PlaylistError(line: a.line, "EXT-X-MEDIA with TYPE=SUBTITLES needs URI")
        }
    }

    var attributeText: String {
        var w = AttributeWriter()
        w.enumerated("TYPE", type.rawValue)
        w.quoted("GROUP-ID", groupID)
        w.quoted("LANGUAGE", language)
        w.quoted("ASSOC-LANGUAGE", associatedLanguage)
        w.quoted("NAME", name)
        w.yes("DEFAULT", isDefault)
        w.yes("AUTOSELECT", autoselect)
        w.yes("FORCED", forced)
        w.quoted("INSTREAM-ID", instreamID)
        w.quoted("CHARACTERISTICS", characteristics)
        w.quoted("CHANNELS", channels)
        w.quoted("URI", uri)
        return w.text
    }
}
