import Foundation
import Testing

/// Loads a playlist fixture from `Fixtures/` in the test bundle.
enum Fixture {
    static func text(_ name: String) throws -> String {
        let url = try #require(
            Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"),
            "missing fixture \(name)")
        return try String(contentsOf: url, encoding: .utf8)
    }

    static let all = [
        "master-multilang.m3u8", "vod-aes128-byterange.m3u8", "ffmpeg-vod-ts.m3u8",
        "ffmpeg-single-file-byterange.m3u8", "ffmpeg-fmp4.m3u8", "ffmpeg-master.m3u8",
        "ffmpeg-audio-English.m3u8", "ffmpeg-aes128.m3u8",
    ] + realWorld + lenient

    /// Real-world-shaped captures written for issue 17: multi-DRM, live, LL-HLS, I-frames.
    static let realWorld = [
        "multidrm-master.m3u8", "multidrm-cbcs-video.m3u8", "multidrm-widevine-first.m3u8",
        "live-capture-dangling.m3u8", "llhls-delta-skip.m3u8", "iframes-only.m3u8", "cmaf-cenc-widevine-playready.m3u8",
    ]

    /// Playlists players accept whose metadata tags are malformed (issue 24): each parses
    /// with a warning, and its malformed line is written back verbatim.
    static let lenient = [
        "llhls-delta-daterange-id-only.m3u8", "daterange-stray-quote.m3u8", "scte35-unquoted-id.m3u8",
        "llhls-skip-unquoted-removed.m3u8", "master-malformed-metadata.m3u8",
    ]
}
