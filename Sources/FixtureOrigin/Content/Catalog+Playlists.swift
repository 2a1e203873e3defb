import HLSPlaylist

/// The HLS playlists of a video, built with `HLSPlaylist` and rendered by the store.
///
/// Every URI is relative to the playlist that holds it: the master playlist at
/// `/videos/{id}/master.m3u8` names `{stream}/index.m3u8` and `subs/{lang}/index.m3u8`;
/// a media playlist names `seg{N}.ts` (or `seg{N}.vtt`) and, for `.httpKey`, `../key`.
extension Catalog {
    /// GROUP-ID of the alternate audio renditions.
    public static let audioGroupID = "aud"
    /// GROUP-ID of the subtitle renditions.
    public static let subtitleGroupID = "subs"
    /// KEYFORMAT of `skd://` keys (FairPlay Streaming).
    public static let fairPlayKeyFormat = "com.apple.streamingkeydelivery"

    /// The master playlist of `video`: alternate audio and subtitle renditions, then one
    /// EXT-X-STREAM-INF per variant (video variants, then audio-only).
    public func masterPlaylist(for video: Video) -> MasterPlaylist {
        let audioGroup = video.audioTracks.isEmpty ? nil : Self.audioGroupID
        let subtitleGroup = video.textTracks.isEmpty ? nil : Self.subtitleGroupID
        var renditions = video.audioTracks.map { track in
            Rendition(
                type: .audio, groupID: Self.audioGroupID, name: track.label, language: track.language,
                isDefault: track.isDefault, autoselect: true, channels: "2",
                uri: "\(track.streamName)/index.m3u8")
        }
        renditions += video.textTracks.map { track in
            Rendition(
                type: .subtitles, groupID: Self.subtitleGroupID, name: track.label, language: track.language,
                isDefault: track.isDefault, autoselect: true, uri: "subs/\(track.language)/index.m3u8")
        }
        let variants = video.variants.map { variant in
            Variant(
                bandwidth: variant.bandwidth, averageBandwidth: variant.averageBandwidth, codecs: variant.codecs,
                resolution: variant.resolution, audio: audioGroup,
                subtitles: variant.isAudioOnly ? nil : subtitleGroup, uri: "\(variant.name)/index.m3u8")
        }
        return MasterPlaylist(version: 4, independentSegments: true, renditions: renditions, variants: variants)
    }

    /// The VOD media playlist of the stream `stream` (a variant or `audio_{lang}`) of
    /// `video`, or nil if it has no such stream. Encrypted videos carry their EXT-X-KEYs
    /// (see `keys(of:stream:segment:)`) on every segment with the IV written explicitly
    /// (see `segmentIV(_:)`).
    public func mediaPlaylist(for video: Video, stream: String) -> MediaPlaylist? {
        guard video.bandwidth(ofStream: stream) != nil else { return nil }
        let segments = (0..<segmentCount(of: video)).map { index in
            MediaSegment(
                duration: duration(ofSegment: index, of: video), uri: "seg\(index).ts",
                keys: keys(of: video, stream: stream, segment: index))
        }
        return vod(segments)
    }

    /// The VOD media playlist of the subtitles in `language` of `video`, or nil.
    /// Subtitle segments line up with the media segments and are never encrypted.
    public func subtitlePlaylist(for video: Video, language: String) -> MediaPlaylist? {
        guard video.textTracks.contains(where: { $0.language == language }) else { return nil }
        let segments = (0..<segmentCount(of: video)).map { index in
            MediaSegment(duration: duration(ofSegment: index, of: video), uri: "seg\(index).vtt")
        }
        return vod(segments)
    }

    /// The IV of segment `index`: its media sequence number as a 128-bit big-endian
    /// integer, which is also what a player would use if EXT-X-KEY had no IV.
    public static func segmentIV(_ index: Int) -> [UInt8] {
        let value = UInt64(index)
        return [UInt8](repeating: 0, count: 8) + (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }

    private func vod(_ segments: [MediaSegment]) -> MediaPlaylist {
        MediaPlaylist(
            version: 4, targetDuration: Int(configuration.segmentDuration.rounded(.up)),
            playlistType: .vod, independentSegments: true, endList: true, segments: segments)
    }
}
