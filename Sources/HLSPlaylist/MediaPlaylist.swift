/// A media playlist: the segments of one rendition or variant (RFC 8216 §4.3.3).
///
/// A plain value: parse it with `MediaPlaylist.parse(_:)` or `Playlist.parse(_:)`, build or
/// edit it freely, and write it with `render()`. Tags that apply to following segments
/// (EXT-X-KEY, EXT-X-MAP) are resolved onto each `MediaSegment`, and byte ranges carry
/// their absolute offset. Unknown tags are ignored when parsing (RFC 8216 §6.3.1).
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
    /// EXT-X-MEDIA-SEQUENCE of the first segment (0 when absent).
    public var mediaSequence: Int
    /// EXT-X-PLAYLIST-TYPE, if present.
    public var playlistType: PlaylistType?
    /// Whether EXT-X-INDEPENDENT-SEGMENTS is present.
    public var independentSegments: Bool
    /// Whether EXT-X-ENDLIST is present: no more segments will be added.
    public var endList: Bool
    /// The segments, in order.
    public var segments: [MediaSegment]

    /// Creates a media playlist.
    public init(
        version: Int? = nil, targetDuration: Int, mediaSequence: Int = 0, playlistType: PlaylistType? = nil,
        independentSegments: Bool = false, endList: Bool = false, segments: [MediaSegment] = []
    ) {
        self.version = version
        self.targetDuration = targetDuration
        self.mediaSequence = mediaSequence
        self.playlistType = playlistType
        self.independentSegments = independentSegments
        self.endList = endList
        self.segments = segments
    }

    /// The sum of the segment durations, in seconds.
    public var totalDuration: Double {
        segments.reduce(0) { $0 + $1.duration }
    }
}
