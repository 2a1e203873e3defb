import HLSPlaylist

/// One video of the fixture catalog: what the catalog API describes and what the
/// master playlist offers. A plain `Sendable` value; `Catalog` builds the standard set.
public struct Video: Hashable, Sendable, Codable {
    /// Stable identifier, used in every path (`/videos/{id}/…`). Letters, digits and `-`.
    public var id: String
    /// Human-readable title.
    public var name: String
    /// Duration in seconds.
    public var duration: Double
    /// The variant streams of the master playlist, video variants first, then the
    /// audio-only one. Each `name` is a path component: `/videos/{id}/{name}/index.m3u8`.
    public var variants: [VideoVariant]
    /// Alternate audio renditions (empty when audio is muxed into the variants).
    public var audioTracks: [AudioTrack]
    /// WebVTT subtitle renditions.
    public var textTracks: [TextTrack]
    /// How segments are encrypted.
    public var protection: Protection
    /// Whether the app may download the video for offline playback (`offline_enabled`).
    public var offlineEnabled: Bool

    /// Creates a video.
    public init(
        id: String, name: String, duration: Double, variants: [VideoVariant],
        audioTracks: [AudioTrack] = [], textTracks: [TextTrack] = [],
        protection: Protection = .none, offlineEnabled: Bool = true
    ) {
        self.id = id
        self.name = name
        self.duration = duration
        self.variants = variants
        self.audioTracks = audioTracks
        self.textTracks = textTracks
        self.protection = protection
        self.offlineEnabled = offlineEnabled
    }

    /// Names of every stream with `.ts` segments: the variants, then the audio tracks.
    public var streamNames: [String] {
        variants.map(\.name) + audioTracks.map(\.streamName)
    }

    /// The peak bandwidth, in bits per second, of the stream called `name`, or nil if
    /// the video has no such stream. Segment sizes are proportional to it.
    public func bandwidth(ofStream name: String) -> Int? {
        if let variant = variants.first(where: { $0.name == name }) { return variant.bandwidth }
        return audioTracks.first(where: { $0.streamName == name })?.bandwidth
    }
}

/// How a video's segments are protected.
public enum Protection: String, Hashable, Sendable, Codable, CaseIterable {
    /// Clear segments, no EXT-X-KEY.
    case none
    /// AES-128 with a key served over plain HTTP at `/videos/{id}/key`: what an
    /// external player (ffmpeg, VLC) can decrypt on its own.
    case httpKey
    /// AES-128 with the key URI `skd://{id}/{key-id}`: only the license server answers it.
    case skd
    /// `.skd`, in a multi-DRM stream: each segment also lists a Widevine and a PlayReady
    /// key (`data:` URIs), FairPlay's `skd://` key first in some variants and last in others.
    case multiDRM = "multi-drm"

    /// Whether the `skd://` key and the license server protect the segments.
    public var usesLicense: Bool { self == .skd || self == .multiDRM }

    /// Whether segments are encrypted.
    public var isEncrypted: Bool { self != .none }
}

/// One EXT-X-STREAM-INF of a video: a video variant or the audio-only variant.
public struct VideoVariant: Hashable, Sendable, Codable {
    /// Path component of the stream, e.g. `1200k` or `audio`.
    public var name: String
    /// BANDWIDTH: peak bits per second.
    public var bandwidth: Int
    /// AVERAGE-BANDWIDTH: average bits per second.
    public var averageBandwidth: Int
    /// RESOLUTION; nil for the audio-only variant.
    public var resolution: Resolution?
    /// CODECS, RFC 6381.
    public var codecs: String

    /// Creates a variant.
    public init(name: String, bandwidth: Int, averageBandwidth: Int, resolution: Resolution?, codecs: String) {
        self.name = name
        self.bandwidth = bandwidth
        self.averageBandwidth = averageBandwidth
        self.resolution = resolution
        self.codecs = codecs
    }

    /// Whether the variant carries no video.
    public var isAudioOnly: Bool { resolution == nil }
}

/// One alternate audio rendition (EXT-X-MEDIA TYPE=AUDIO).
public struct AudioTrack: Hashable, Sendable, Codable {
    /// RFC 5646 language tag, e.g. `fr`.
    public var language: String
    /// NAME shown to the user, e.g. `Français`.
    public var label: String
    /// DEFAULT=YES.
    public var isDefault: Bool
    /// Peak bits per second of the rendition's segments.
    public var bandwidth: Int

    /// Creates an audio track.
    public init(language: String, label: String, isDefault: Bool = false, bandwidth: Int = 128_000) {
        self.language = language
        self.label = label
        self.isDefault = isDefault
        self.bandwidth = bandwidth
    }

    /// Path component of the rendition: `audio_{language}`.
    public var streamName: String { "audio_\(language)" }
}

/// One WebVTT subtitle rendition (EXT-X-MEDIA TYPE=SUBTITLES), served under
/// `/videos/{id}/subs/{language}/`.
public struct TextTrack: Hashable, Sendable, Codable {
    /// RFC 5646 language tag, e.g. `de`.
    public var language: String
    /// NAME shown to the user, e.g. `Deutsch`.
    public var label: String
    /// DEFAULT=YES.
    public var isDefault: Bool

    /// Creates a text track.
    public init(language: String, label: String, isDefault: Bool = false) {
        self.language = language
        self.label = label
        self.isDefault = isDefault
    }
}
