import Crypto
import Foundation
import HLSPlaylist

/// The fixture catalog: the videos the origin serves and the configuration their
/// bytes derive from (DESIGN.md §3).
///
/// A `Sendable` value built once at start-up and shared read-only by every request
/// handler; everything it answers is a pure function of `configuration` and `videos`.
public struct Catalog: Hashable, Sendable {
    /// What the bytes derive from.
    public let configuration: CatalogConfiguration
    /// The videos, in catalog order (the order of `GET /videos`).
    public let videos: [Video]

    /// The standard catalog (`Catalog.standardVideos`) under `configuration`.
    public init(configuration: CatalogConfiguration = CatalogConfiguration()) {
        self.init(configuration: configuration, videos: Self.standardVideos(configuration))
    }

    /// A catalog of `videos`; ids must be unique (the first wins on lookup).
    public init(configuration: CatalogConfiguration, videos: [Video]) {
        self.configuration = configuration
        self.videos = videos
    }

    /// The video with `id`, or nil.
    public func video(withID id: String) -> Video? {
        videos.first { $0.id == id }
    }

    /// The 16-byte AES-128 content key of a protected video (`.httpKey` or `.skd`),
    /// derived from the seed and the id; nil for a clear or unknown video.
    ///
    /// The license server calls this to put the key in a license; the key endpoint
    /// serves it for `.httpKey` videos.
    public func contentKey(for videoID: String) -> [UInt8]? {
        guard let video = video(withID: videoID), video.protection.isEncrypted else { return nil }
        return Array(digest("content-key", videoID).prefix(16))
    }

    /// The key id of a protected video: 32 lowercase hex digits, the last component of
    /// its `skd://{id}/{key-id}` URI; nil for a clear or unknown video.
    public func keyID(for videoID: String) -> String? {
        guard let video = video(withID: videoID), video.protection.isEncrypted else { return nil }
        return Hex.string(digest("key-id", videoID).prefix(16))
    }

    /// The EXT-X-KEY URI of a protected video: `skd://{id}/{key-id}` for `.skd`, and
    /// `../key` (relative to a media playlist, i.e. `/videos/{id}/key`) for `.httpKey`.
    public func keyURI(for videoID: String) -> String? {
        guard let video = video(withID: videoID), let keyID = keyID(for: videoID) else { return nil }
        switch video.protection {
        case .none: return nil
        case .httpKey: return "../key"
        case .skd, .multiDRM: return "skd://\(videoID)/\(keyID)"
        }
    }

    /// Number of segments of every stream of `video`: ⌈duration / segment duration⌉.
    public func segmentCount(of video: Video) -> Int {
        let ratio = video.duration / configuration.segmentDuration
        return max(1, Int((ratio - 1e-9).rounded(.up)))
    }

    /// Duration of segment `index` of `video`, in seconds; the last one holds the rest.
    public func duration(ofSegment index: Int, of video: Video) -> Double {
        let count = segmentCount(of: video)
        guard index == count - 1 else { return configuration.segmentDuration }
        return video.duration - Double(count - 1) * configuration.segmentDuration
    }

    /// SHA-256 of `label`, the seed and `videoID`: the root of every per-video secret.
    private func digest(_ label: String, _ videoID: String) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: Array("deadzone.\(label)\u{0}".utf8))
        withUnsafeBytes(of: configuration.seed.littleEndian) { hasher.update(bufferPointer: $0) }
        hasher.update(data: Array(videoID.utf8))
        return Array(hasher.finalize())
    }
}

extension Catalog {
    /// The standard ladder: four video variants and an audio-only one.
    public static let standardVariants: [VideoVariant] = [
        VideoVariant(
            name: "400k", bandwidth: 400_000, averageBandwidth: 360_000,
            resolution: Resolution(width: 416, height: 234), codecs: "avc1.42c01e,mp4a.40.2"),
        VideoVariant(
            name: "1200k", bandwidth: 1_200_000, averageBandwidth: 1_080_000,
            resolution: Resolution(width: 640, height: 360), codecs: "avc1.4d401e,mp4a.40.2"),
        VideoVariant(
            name: "3000k", bandwidth: 3_000_000, averageBandwidth: 2_700_000,
            resolution: Resolution(width: 1280, height: 720), codecs: "avc1.64001f,mp4a.40.2"),
        VideoVariant(
            name: "6000k", bandwidth: 6_000_000, averageBandwidth: 5_400_000,
            resolution: Resolution(width: 1920, height: 1080), codecs: "avc1.640028,mp4a.40.2"),
        VideoVariant(
            name: "audio", bandwidth: 64_000, averageBandwidth: 60_000, resolution: nil, codecs: "mp4a.40.2"),
    ]

    /// The standard videos: `clear`, `protected` (skd), `http-key`, `multi-drm` (skd
    /// listed with Widevine and PlayReady keys), `multilang` (audio
    /// en/fr/es, subtitles en/de), `online-only` (not offline-enabled) and `large`
    /// (`configuration.largeVideoDuration` long). Durations other than `large` are
    /// deliberately not multiples of 6 s so the last segment is short.
    public static func standardVideos(_ configuration: CatalogConfiguration) -> [Video] {
        let ladder = standardVariants
        return [
            Video(id: "clear", name: "Clear Sample", duration: 125, variants: ladder),
            Video(id: "protected", name: "Protected Sample", duration: 95, variants: ladder, protection: .skd),
            Video(id: "http-key", name: "HTTP Key Sample", duration: 62, variants: ladder, protection: .httpKey),
            Video(id: "multi-drm", name: "Multi-DRM Sample", duration: 41, variants: ladder, protection: .multiDRM),
            Video(
                id: "multilang", name: "Multilingual Sample", duration: 64, variants: ladder,
                audioTracks: [
                    AudioTrack(language: "en", label: "English", isDefault: true),
                    AudioTrack(language: "fr", label: "Français"),
                    AudioTrack(language: "es", label: "Español"),
                ],
                textTracks: [
                    TextTrack(language: "en", label: "English", isDefault: true),
                    TextTrack(language: "de", label: "Deutsch"),
                ]),
            Video(
                id: "online-only", name: "Online Only Sample", duration: 47, variants: ladder,
                offlineEnabled: false),
            Video(id: "large", name: "Large Sample", duration: configuration.largeVideoDuration, variants: ladder),
        ]
    }
}

/// Lowercase hexadecimal text.
enum Hex {
    static func string(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
