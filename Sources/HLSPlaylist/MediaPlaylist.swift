/// A media playlist: the segments of one rendition or variant (RFC 8216 §4.3.3).
///
/// A plain value: parse it with `MediaPlaylist.parse(_:)` or `Playlist.parse(_:)`, build or
/// edit it freely, and write it with `render()`. Tags that apply to following segments
/// (EXT-X-KEY, EXT-X-MAP) are resolved onto each `MediaSegment`, and byte ranges carry
/// their absolute offset. Tags it does not model are kept verbatim, in order, on the
/// segment they precede (`MediaSegment.unknownTags`) or after the last one (`trailingTags`),
/// and so are malformed metadata tags (EXT-X-DATERANGE, EXT-X-PROGRAM-DATE-TIME,
/// EXT-X-START), each with an entry in `warnings` (see `PlaylistWarning`).
public struct MediaPlaylist: Hashable, Sendable, Codable {
    /// EXT-X-PLAYLIST-TYPE.
    public enum PlaylistType: String, Hashable, Sendable, Codable, CaseIterable {
        /// Segments may only be appended.
        case event = "EVENT"
        /// The playlist never changes.
        case vod = "VOD"
    }

    /// EXT-X-VERSION, if present.
    public var version: Int?
    /// EXT-X-TARGETDURATION in seconds (required).
    public var targetDuration: Int
    /// EXT-X-MEDIA-SEQUENCE of the first segment (0 when absent); see `mediaSequenceNumber(ofSegment:)`.
    public var mediaSequence: Int
    /// EXT-X-DISCONTINUITY-SEQUENCE: the discontinuity number of the first segment (0 when absent).
    public var discontinuitySequence: Int
    /// EXT-X-PLAYLIST-TYPE, if present.
    public var playlistType: PlaylistType?
    /// Whether EXT-X-I-FRAMES-ONLY is present: each segment is one I-frame (a byte range).
    public var iFramesOnly: Bool
    /// Whether EXT-X-INDEPENDENT-SEGMENTS is present.
    public var independentSegments: Bool
    /// EXT-X-START, if present.
    public var start: StartPoint?
    /// EXT-X-SKIP of a delta update: segments left out before the first listed one.
    public var skip: Skip?
    /// Whether EXT-X-ENDLIST is present: no more segments will be added.
    public var endList: Bool
    /// The segments, in order.
    public var segments: [MediaSegment]
    /// EXT-X-DATERANGE tags after the last segment, in order.
    public var trailingDateRanges: [DateRange]
    /// Unmodelled tags after the last segment (e.g. EXT-X-PRELOAD-HINT), verbatim, in order.
    public var trailingTags: [String]
    private var parseWarnings = NotCompared<[PlaylistWarning]>(value: [])

    /// What the parser accepted but ignored: a live playlist's final EXTINF with no URI
    /// yet, malformed metadata tags (kept verbatim), a malformed RECENTLY-REMOVED-DATERANGES
    /// (see `PlaylistWarning`). Not part of the playlist's meaning: not compared, hashed,
    /// encoded or rendered.
    public var warnings: [PlaylistWarning] {
        get { parseWarnings.value }
        set { parseWarnings.value = newValue }
    }

    /// Creates a media playlist.
    public init(
        version: Int? = nil, targetDuration: Int, mediaSequence: Int = 0, discontinuitySequence: Int = 0,
        playlistType: PlaylistType? = nil, iFramesOnly: Bool = false, independentSegments: Bool = false,
        start: StartPoint? = nil, skip: Skip? = nil, endList: Bool = false, segments: [MediaSegment] = [],
        trailingDateRanges: [DateRange] = [], trailingTags: [String] = []
    ) {
        self.version = version
        self.targetDuration = targetDuration
        self.mediaSequence = mediaSequence
        self.discontinuitySequence = discontinuitySequence
        self.playlistType = playlistType
        self.iFramesOnly = iFramesOnly
        self.independentSegments = independentSegments
        self.start = start
        self.skip = skip
        self.endList = endList
        self.segments = segments
        self.trailingDateRanges = trailingDateRanges
        self.trailingTags = trailingTags
    }

    private enum CodingKeys: String, CodingKey {
        case version, targetDuration, mediaSequence, discontinuitySequence, playlistType, iFramesOnly
        case independentSegments, start, skip, endList, segments, trailingDateRanges, trailingTags
    }

    /// Decodes a playlist; fields added after a value was encoded (e.g. a download plan
    /// kept by an older engine) read as absent.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            version: try c.decodeIfPresent(Int.self, forKey: .version),
            targetDuration: try c.decode(Int.self, forKey: .targetDuration),
            mediaSequence: try c.decode(Int.self, forKey: .mediaSequence),
            discontinuitySequence: try c.decodeIfPresent(Int.self, forKey: .discontinuitySequence) ?? 0,
            playlistType: try c.decodeIfPresent(PlaylistType.self, forKey: .playlistType),
            iFramesOnly: try c.decodeIfPresent(Bool.self, forKey: .iFramesOnly) ?? false,
            independentSegments: try c.decode(Bool.self, forKey: .independentSegments),
            start: try c.decodeIfPresent(StartPoint.self, forKey: .start),
            skip: try c.decodeIfPresent(Skip.self, forKey: .skip),
            endList: try c.decode(Bool.self, forKey: .endList),
            segments: try c.decode([MediaSegment].self, forKey: .segments),
            trailingDateRanges: try c.decodeIfPresent([DateRange].self, forKey: .trailingDateRanges) ?? [],
            trailingTags: try c.decodeIfPresent([String].self, forKey: .trailingTags) ?? [])
    }

    /// The sum of the segment durations, in seconds.
    public var totalDuration: Double {
        segments.reduce(0) { $0 + $1.duration }
    }

    /// The media sequence number of `segments[index]`: EXT-X-MEDIA-SEQUENCE plus the
    /// segments an EXT-X-SKIP left out plus `index` (what an implicit IV is made of).
    public func mediaSequenceNumber(ofSegment index: Int) -> Int {
        mediaSequence &+ (skip?.skippedSegments ?? 0) &+ index
    }

    /// Whether the playlist is complete (EXT-X-ENDLIST or PLAYLIST-TYPE=VOD): a final
    /// EXTINF without a URI is then an error rather than a live entry not yet written.
    public var isVOD: Bool { endList || playlistType == .vod }
}
