/// EXT-X-START: where a player should start playing (RFC 8216 §4.3.5.2); in either kind
/// of playlist.
public struct StartPoint: Hashable, Sendable, Codable {
    /// TIME-OFFSET in seconds: from the start of the playlist, or from its end when negative.
    public var timeOffset: Double
    /// PRECISE=YES: start exactly at the offset rather than at the segment holding it.
    public var precise: Bool

    /// Creates a start point.
    public init(timeOffset: Double, precise: Bool = false) {
        self.timeOffset = timeOffset
        self.precise = precise
    }

    init(attributes a: AttributeList) throws(PlaylistError) {
        self.init(
            timeOffset: try a.required("TIME-OFFSET", a.float("TIME-OFFSET")), precise: try a.yesNo("PRECISE"))
    }

    var attributeText: String {
        var w = AttributeWriter()
        w.float("TIME-OFFSET", timeOffset)
        w.yes("PRECISE", precise)
        return w.text
    }
}

/// EXT-X-SESSION-DATA: arbitrary session data of a master playlist (RFC 8216 §4.3.4.4).
public struct SessionData: Hashable, Sendable, Codable {
    /// DATA-ID (required), e.g. `com.example.title`.
    public var dataID: String
    /// VALUE; exactly one of `value` and `uri` is present in a valid tag.
    public var value: String?
    /// URI of a JSON resource holding the data, as written.
    public var uri: String?
    /// LANGUAGE of `value`, an RFC 5646 tag.
    public var language: String?
    /// FORMAT of the URI's resource (`JSON` or `RAW`, draft-pantos-hls-rfc8216bis).
    public var format: String?

    /// Creates session data.
    public init(dataID: String, value: String? = nil, uri: String? = nil, language: String? = nil, format: String? = nil) {
        self.dataID = dataID
        self.value = value
        self.uri = uri
        self.language = language
        self.format = format
    }

    init(attributes a: AttributeList) throws(PlaylistError) {
        self.init(
            dataID: try a.required("DATA-ID", a.quotedString("DATA-ID")), value: try a.quotedString("VALUE"),
            uri: try a.quotedString("URI"), language: try a.quotedString("LANGUAGE"), format: try a.token("FORMAT"))
        guard (value == nil) != (uri == nil) else {
            throw PlaylistError(line: a.line, "EXT-X-SESSION-DATA needs exactly one of VALUE and URI")
        }
    }

    var attributeText: String {
        var w = AttributeWriter()
        w.quoted("DATA-ID", dataID)
        w.quoted("VALUE", value)
        w.quoted("URI", uri)
        w.enumerated("FORMAT", format)
        w.quoted("LANGUAGE", language)
        return w.text
    }
}

/// EXT-X-SKIP: a delta update left out segments the client already has
/// (draft-pantos-hls-rfc8216bis §4.4.5.2). The first listed segment's media sequence
/// number is `mediaSequence + skippedSegments`.
///
/// SKIPPED-SEGMENTS is required (a problem with it is an error); a malformed
/// RECENTLY-REMOVED-DATERANGES is ignored with a warning, and `render()` then writes the
/// tag as it was written for as long as the value read from it is unchanged.
public struct Skip: Hashable, Sendable, Codable {
    /// SKIPPED-SEGMENTS: how many segments were left out.
    public var skippedSegments: Int
    /// RECENTLY-REMOVED-DATERANGES: the IDs of date ranges removed since (tab-separated
    /// when written); empty when the attribute is absent or malformed.
    public var recentlyRemovedDateRanges: [String]
    /// The attribute list as written, kept when it held a malformed attribute.
    private var asWritten = NotCompared<AsWritten?>(value: nil)

    /// The text of a tag read leniently and the value read from it.
    private struct AsWritten: Sendable {
        var attributes: String
        var skippedSegments: Int
    }

    private enum CodingKeys: String, CodingKey {
        case skippedSegments, recentlyRemovedDateRanges
    }

    /// Creates a skip.
    public init(skippedSegments: Int, recentlyRemovedDateRanges: [String] = []) {
        self.skippedSegments = skippedSegments
        self.recentlyRemovedDateRanges = recentlyRemovedDateRanges
    }

    /// Reads the tag; `warning` is set when RECENTLY-REMOVED-DATERANGES was malformed and ignored.
    init(attributes a: AttributeList, text: String, warning: inout PlaylistWarning?) throws(PlaylistError) {
        self.init(skippedSegments: try a.required("SKIPPED-SEGMENTS", a.decimalInteger("SKIPPED-SEGMENTS")))
        do {
            let removed = try a.quotedString("RECENTLY-REMOVED-DATERANGES")
            recentlyRemovedDateRanges =
                removed.map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) } ?? []
        } catch {
            warning = .unread(a.tag, error, "RECENTLY-REMOVED-DATERANGES is ignored and the tag kept as written")
            asWritten.value = AsWritten(attributes: text, skippedSegments: skippedSegments)
        }
    }

    var attributeText: String {
        if let written = asWritten.value, written.skippedSegments == skippedSegments, recentlyRemovedDateRanges.isEmpty {
            return written.attributes
        }
        var w = AttributeWriter()
        w.integer("SKIPPED-SEGMENTS", skippedSegments)
        w.quoted("RECENTLY-REMOVED-DATERANGES", recentlyRemovedDateRanges.isEmpty ? nil : recentlyRemovedDateRanges.joined(separator: "\t"))
        return w.text
    }
}

/// The CLOSED-CAPTIONS attribute of EXT-X-STREAM-INF (RFC 8216 §4.3.4.2).
public enum ClosedCaptions: Hashable, Sendable, Codable {
    /// `CLOSED-CAPTIONS=NONE`: the variant has no closed captions.
    case none
    /// `CLOSED-CAPTIONS="group"`: the GROUP-ID of its CLOSED-CAPTIONS renditions.
    case group(String)
}

/// A value carried along that takes no part in equality or hashing (parse warnings:
/// they describe the text read, not the playlist).
struct NotCompared<Value: Sendable>: Hashable, Sendable {
    var value: Value
    static func == (lhs: Self, rhs: Self) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}

/// An unknown tag line, kept verbatim (`#EXT…` with its value) for `render()`.
enum UnknownTag {
    static func line(name: String, value: String?) -> String {
        "#" + name + (value.map { ":" + $0 } ?? "")
    }

    /// The lines `render()` writes: those that are tags (`#EXT…`), each kept on one line;
    /// anything else (a value built by hand) would read back as a URI or a comment, so it is left out.
    static func writable(_ tags: [String]) -> [String] {
        tags.filter { $0.hasPrefix("#EXT") }.map { $0.replacingLineBreaks() }
    }
}
