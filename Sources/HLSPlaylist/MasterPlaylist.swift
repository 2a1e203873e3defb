/// A master (multivariant) playlist: the variants of one presentation and their
/// alternate renditions (RFC 8216 §4.3.4).
///
/// A plain value: parse it with `MasterPlaylist.parse(_:)` or `Playlist.parse(_:)`, build
/// or edit it freely, and write it with `render()`. Order within each array is kept.
/// Tags it does not model are kept verbatim, in order, in `unknownTags`, and so are
/// malformed metadata tags, each with an entry in `warnings`.
public struct MasterPlaylist: Hashable, Sendable, Codable {
    /// EXT-X-VERSION, if present.
    public var version: Int?
    /// Whether EXT-X-INDEPENDENT-SEGMENTS is present.
    public var independentSegments: Bool
    /// EXT-X-START, if present.
    public var start: StartPoint?
    /// EXT-X-SESSION-DATA tags, in order.
    public var sessionData: [SessionData]
    /// EXT-X-SESSION-KEY tags, in order.
    public var sessionKeys: [EncryptionKey]
    /// EXT-X-MEDIA tags, in order.
    public var renditions: [Rendition]
    /// EXT-X-STREAM-INF tags with their URI lines, in order.
    public var variants: [Variant]
    /// EXT-X-I-FRAME-STREAM-INF tags, in order.
    public var iFrameVariants: [IFrameVariant]
    /// Tags this parser does not model (e.g. EXT-X-CONTENT-STEERING), whole lines
    /// (`#EXT…`) verbatim and in order; `render()` writes them after the header tags.
    public var unknownTags: [String]
    private var parseWarnings = NotCompared<[PlaylistWarning]>(value: [])

    /// What the parser accepted but ignored: malformed metadata tags, kept verbatim in
    /// `unknownTags` (see `PlaylistWarning`). Not part of the playlist's meaning: not
    /// compared, hashed, encoded or rendered.
    public var warnings: [PlaylistWarning] {
        get { parseWarnings.value }
        set { parseWarnings.value = newValue }
    }

    /// Creates a master playlist.
    public init(
        version: Int? = nil, independentSegments: Bool = false, start: StartPoint? = nil,
        sessionData: [SessionData] = [], sessionKeys: [EncryptionKey] = [], renditions: [Rendition] = [],
        variants: [Variant] = [], iFrameVariants: [IFrameVariant] = [], unknownTags: [String] = []
    ) {
        self.version = version
        self.independentSegments = independentSegments
        self.start = start
        self.sessionData = sessionData
        self.unknownTags = unknownTags
        self.sessionKeys = sessionKeys
        self.renditions = renditions
        self.variants = variants
        self.iFrameVariants = iFrameVariants
    }

    private enum CodingKeys: String, CodingKey {
        case version, independentSegments, start, sessionData, sessionKeys, renditions, variants, iFrameVariants
        case unknownTags
    }

    /// Decodes a playlist; fields added after a value was encoded (e.g. a download plan
    /// kept by an older engine) read as absent.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            version: try c.decodeIfPresent(Int.self, forKey: .version),
            independentSegments: try c.decode(Bool.self, forKey: .independentSegments),
            start: try c.decodeIfPresent(StartPoint.self, forKey: .start),
            sessionData: try c.decodeIfPresent([SessionData].self, forKey: .sessionData) ?? [],
            sessionKeys: try c.decode([EncryptionKey].self, forKey: .sessionKeys),
            renditions: try c.decode([Rendition].self, forKey: .renditions),
            variants: try c.decode([Variant].self, forKey: .variants),
            iFrameVariants: try c.decode([IFrameVariant].self, forKey: .iFrameVariants),
            unknownTags: try c.decodeIfPresent([String].self, forKey: .unknownTags) ?? [])
    }

    /// The renditions of `type` whose GROUP-ID is `groupID`, e.g. a variant's AUDIO group.
    public func renditions(ofType type: Rendition.MediaType, inGroup groupID: String) -> [Rendition] {
        renditions.filter { $0.type == type && $0.groupID == groupID }
    }
}
