/// One media segment: its EXTINF, URI line and the tags in effect for it (RFC 8216 §4.3.2).
public struct MediaSegment: Hashable, Sendable, Codable {
    /// EXTINF duration in seconds.
    public var duration: Double
    /// EXTINF title (the text after the comma); empty when there is none.
    public var title: String
    /// The segment URI, as written (not resolved).
    public var uri: String
    /// EXT-X-BYTERANGE with its offset made absolute; nil for the whole resource.
    public var byteRange: ByteRange?
    /// Every EXT-X-KEY in effect, one per KEYFORMAT, in the order written (RFC 8216
    /// §4.3.2.4: a multi-DRM stream lists e.g. an `skd://` FairPlay key, a Widevine and a
    /// PlayReady key for the same segments). Empty when segments are not encrypted (no
    /// key, or METHOD=NONE, which ends every key). A reader chooses the one it supports.
    public var keys: [EncryptionKey]
    /// The EXT-X-MAP in effect, if any.
    public var map: MediaInitializationSection?
    /// Whether EXT-X-DISCONTINUITY precedes this segment.
    public var discontinuity: Bool
    /// EXT-X-PROGRAM-DATE-TIME of the segment's first sample, as written (ISO 8601).
    public var programDateTime: String?
    /// EXT-X-DATERANGE tags written before this segment, in order.
    public var dateRanges: [DateRange]
    /// Tags this parser does not model (e.g. LL-HLS EXT-X-PART, EXT-X-GAP), written
    /// before this segment: whole lines (`#EXT…`), verbatim and in order. `render()`
    /// writes them just before the segment's EXTINF (a string not starting `#EXT` is left out).
    public var unknownTags: [String]

    /// Creates a segment.
    public init(
        duration: Double, title: String = "", uri: String, byteRange: ByteRange? = nil,
        keys: [EncryptionKey] = [], map: MediaInitializationSection? = nil, discontinuity: Bool = false,
        programDateTime: String? = nil, dateRanges: [DateRange] = [], unknownTags: [String] = []
    ) {
        self.duration = duration
        self.title = title
        self.uri = uri
        self.byteRange = byteRange
        self.keys = keys
        self.map = map
        self.discontinuity = discontinuity
        self.programDateTime = programDateTime
        self.dateRanges = dateRanges
        self.unknownTags = unknownTags
    }

    private enum CodingKeys: String, CodingKey {
        case duration, title, uri, byteRange, keys, map, discontinuity, programDateTime, dateRanges, unknownTags
        /// The single key of values encoded before `keys` (a download plan kept by an older engine).
        case key
    }

    /// Decodes a segment; a value encoded with the former single `key` reads as `keys`,
    /// and fields added since read as absent.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let legacyKey = try c.decodeIfPresent(EncryptionKey.self, forKey: .key)
        self.init(
            duration: try c.decode(Double.self, forKey: .duration), title: try c.decode(String.self, forKey: .title),
            uri: try c.decode(String.self, forKey: .uri), byteRange: try c.decodeIfPresent(ByteRange.self, forKey: .byteRange),
            keys: try c.decodeIfPresent([EncryptionKey].self, forKey: .keys) ?? legacyKey.map { [$0] } ?? [],
            map: try c.decodeIfPresent(MediaInitializationSection.self, forKey: .map),
            discontinuity: try c.decode(Bool.self, forKey: .discontinuity),
            programDateTime: try c.decodeIfPresent(String.self, forKey: .programDateTime),
            dateRanges: try c.decodeIfPresent([DateRange].self, forKey: .dateRanges) ?? [],
            unknownTags: try c.decodeIfPresent([String].self, forKey: .unknownTags) ?? [])
    }

    /// Encodes the segment (`keys`, never the former `key`).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(duration, forKey: .duration)
        try c.encode(title, forKey: .title)
        try c.encode(uri, forKey: .uri)
        try c.encodeIfPresent(byteRange, forKey: .byteRange)
        try c.encode(keys, forKey: .keys)
        try c.encodeIfPresent(map, forKey: .map)
        try c.encode(discontinuity, forKey: .discontinuity)
        try c.encodeIfPresent(programDateTime, forKey: .programDateTime)
        try c.encode(dateRanges, forKey: .dateRanges)
        try c.encode(unknownTags, forKey: .unknownTags)
    }

    /// The first key whose KEYFORMAT (`identity` when absent) is `format`, if any.
    public func keyOfFormat(_ format: String) -> EncryptionKey? {
        keys.first { $0.format == format }
    }
}

/// A sub-range of a resource: `length@offset` (RFC 8216 §4.3.2.2).
public struct ByteRange: Hashable, Sendable, Codable, CustomStringConvertible {
    /// Number of bytes.
    public var length: Int
    /// Offset of the first byte from the start of the resource.
    public var offset: Int

    /// Creates a byte range of `length` bytes starting at `offset`.
    public init(length: Int, offset: Int) {
        self.length = length
        self.offset = offset
    }

    /// The offset just past the range, or nil if it overflows.
    public var end: Int? {
        let (sum, overflow) = offset.addingReportingOverflow(length)
        return overflow ? nil : sum
    }

    /// The HTTP `Range` header value, e.g. `bytes=0-1023`; nil for an empty or overflowing range.
    public var httpRangeHeader: String? {
        guard length > 0, let end else { return nil }
        return "bytes=\(offset)-\(end - 1)"
    }

    /// `length@offset`, as written in playlists.
    public var description: String { "\(length)@\(offset)" }

    /// Parses `length[@offset]`; the offset is nil when absent.
    static func parse(_ text: String) -> (length: Int, offset: Int?)? {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2, let length = Scalars.decimalInteger(parts[0]) else { return nil }
        guard parts.count == 2 else { return (length, nil) }
        guard let offset = Scalars.decimalInteger(parts[1]) else { return nil }
        return (length, offset)
    }
}

/// EXT-X-MAP: where the Media Initialization Section (e.g. fMP4 `init.mp4`) is (RFC 8216 §4.3.2.5).
public struct MediaInitializationSection: Hashable, Sendable, Codable {
    /// URI of the resource holding the section, as written (not resolved).
    public var uri: String
    /// BYTERANGE within that resource; an absent offset reads as 0.
    public var byteRange: ByteRange?

    /// Creates a map.
    public init(uri: String, byteRange: ByteRange? = nil) {
        self.uri = uri
        self.byteRange = byteRange
    }
}
