import Foundation

/// One EXT-X-STREAM-INF tag and the URI line that follows it (RFC 8216 §4.3.4.2).
public struct Variant: Hashable, Sendable, Codable {
    /// BANDWIDTH: peak bits per second (required).
    public var bandwidth: Int
    /// AVERAGE-BANDWIDTH in bits per second.
    public var averageBandwidth: Int?
    /// CODECS, as written: a comma-separated list of RFC 6381 formats.
    public var codecs: String?
    /// RESOLUTION of the video.
    public var resolution: Resolution?
    /// FRAME-RATE: maximum frames per second.
    public var frameRate: Double?
    /// HDCP-LEVEL, as written: `TYPE-0`, `TYPE-1` or `NONE`.
    public var hdcpLevel: String?
    /// AUDIO: GROUP-ID of the audio renditions to use with this variant.
    public var audio: String?
    /// VIDEO: GROUP-ID of the video renditions.
    public var video: String?
    /// SUBTITLES: GROUP-ID of the subtitle renditions.
    public var subtitles: String?
    /// CLOSED-CAPTIONS: a group of CLOSED-CAPTIONS renditions, or `.none`.
    public var closedCaptions: ClosedCaptions?
    /// The media playlist URI, as written (not resolved).
    public var uri: String

    /// Creates a variant.
    public init(
        bandwidth: Int, averageBandwidth: Int? = nil, codecs: String? = nil, resolution: Resolution? = nil,
        frameRate: Double? = nil, hdcpLevel: String? = nil, audio: String? = nil, video: String? = nil,
        subtitles: String? = nil, closedCaptions: ClosedCaptions? = nil, uri: String
    ) {
        self.hdcpLevel = hdcpLevel
        self.closedCaptions = closedCaptions
        self.bandwidth = bandwidth
        self.averageBandwidth = averageBandwidth
        self.codecs = codecs
        self.resolution = resolution
        self.frameRate = frameRate
        self.audio = audio
        self.video = video
        self.subtitles = subtitles
        self.uri = uri
    }

    /// The CODECS list split into its formats (e.g. `["avc1.64001f", "mp4a.40.2"]`).
    public var codecList: [String] {
        (codecs ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }
}

/// One EXT-X-I-FRAME-STREAM-INF tag (RFC 8216 §4.3.4.3).
public struct IFrameVariant: Hashable, Sendable, Codable {
    /// BANDWIDTH in bits per second (required).
    public var bandwidth: Int
    /// AVERAGE-BANDWIDTH in bits per second.
    public var averageBandwidth: Int?
    /// CODECS, as written.
    public var codecs: String?
    /// RESOLUTION of the video.
    public var resolution: Resolution?
    /// HDCP-LEVEL, as written.
    public var hdcpLevel: String?
    /// VIDEO: GROUP-ID of the video renditions.
    public var video: String?
    /// URI of the I-frame media playlist, as written (required).
    public var uri: String

    /// Creates an I-frame variant.
    public init(
        bandwidth: Int, averageBandwidth: Int? = nil, codecs: String? = nil,
        resolution: Resolution? = nil, hdcpLevel: String? = nil, video: String? = nil, uri: String
    ) {
        self.hdcpLevel = hdcpLevel
        self.bandwidth = bandwidth
        self.averageBandwidth = averageBandwidth
        self.codecs = codecs
        self.resolution = resolution
        self.video = video
        self.uri = uri
    }
}
