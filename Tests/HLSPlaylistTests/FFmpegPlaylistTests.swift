import Testing
@testable import HLSPlaylist

/// Playlists written by ffmpeg 5.1's HLS muxer (`-f hls -hls_time 2 -hls_playlist_type vod`,
/// with `-g 50` so 25 fps video cuts every 2 s); generated once and kept as fixtures.
struct FFmpegPlaylistTests {
    @Test func vodTransportStream() throws {
        let media = try MediaPlaylist.parse(Fixture.text("ffmpeg-vod-ts.m3u8"))
        #expect(media == MediaPlaylist(
            version: 3, targetDuration: 2, mediaSequence: 0, playlistType: .vod, endList: true,
            segments: (0..<3).map { MediaSegment(duration: 2, uri: "out\($0).ts") }))
    }

    @Test func singleFileByteRanges() throws {
        let media = try MediaPlaylist.parse(Fixture.text("ffmpeg-single-file-byterange.m3u8"))
        #expect(media.version == 4)
        #expect(media.segments.map(\.byteRange) == [
            ByteRange(length: 37788, offset: 0), ByteRange(length: 37600, offset: 37788),
            ByteRange(length: 37600, offset: 75388),
        ])
        #expect(Set(media.segments.map(\.uri)) == ["out.ts"])
    }

    @Test func fragmentedMP4WithMap() throws {
        let media = try MediaPlaylist.parse(Fixture.text("ffmpeg-fmp4.m3u8"))
        #expect(media.version == 7)
        #expect(media.segments.count == 3)
        #expect(media.segments.allSatisfy { $0.map == MediaInitializationSection(uri: "init.mp4") })
    }

    @Test func aes128WithKeyInfoFile() throws {
        let media = try MediaPlaylist.parse(Fixture.text("ffmpeg-aes128.m3u8"))
        let key = try #require(media.segments.first?.keys.first)
        #expect(key.method == .aes128)
        #expect(key.uri == "https://keys.example.com/enc.key")
        #expect(key.iv.map(Scalars.hex) == "0x0123456789abcdef0123456789abcdef")
        #expect(media.segments.allSatisfy { $0.keys == [key] })
    }

    @Test func audioRenditionWithUnevenDurations() throws {
        let media = try MediaPlaylist.parse(Fixture.text("ffmpeg-audio-English.m3u8"))
        #expect(media.segments.map(\.duration) == [2.020133, 1.996922, 1.996911, 0.023222])
        #expect(media.segments.allSatisfy { $0.title.isEmpty })
    }

    @Test func masterFromVarStreamMap() throws {
        // ffmpeg leaves a blank line after each variant URI; blank lines are skipped.
        let master = try MasterPlaylist.parse(Fixture.text("ffmpeg-master.m3u8"))
        #expect(master.version == 3)
        #expect(master.renditions == [Rendition(
            type: .audio, groupID: "group_aud", name: "audio_2", language: "en", isDefault: true,
            uri: "out_English.m3u8")])
        #expect(master.variants == [
            Variant(bandwidth: 955_900, codecs: "avc1.f4000d,mp4a.40.2", resolution: Resolution(width: 320, height: 240),
                    audio: "group_aud", uri: "out_0.m3u8"),
            Variant(bandwidth: 405_900, codecs: "avc1.f4000b,mp4a.40.2", resolution: Resolution(width: 160, height: 120),
                    audio: "group_aud", uri: "out_1.m3u8"),
        ])
    }

    @Test func handWrittenInFFmpegStyle() throws {
        let text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n"
            + "#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:2.000000,\nseg0.ts\n#EXTINF:2.000000,\nseg1.ts\n"
            + "#EXTINF:1.480000,\nseg2.ts\n#EXT-X-ENDLIST\n"
        let media = try MediaPlaylist.parse(text)
        #expect(media.segments.map(\.uri) == ["seg0.ts", "seg1.ts", "seg2.ts"])
        #expect(media.totalDuration == 5.48)

        let master = try MasterPlaylist.parse(
            "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-STREAM-INF:BANDWIDTH=1210000,RESOLUTION=1280x720,"
                + "CODECS=\"avc1.64001f,mp4a.40.2\"\nstream_0.m3u8\n\n")
        #expect(master.variants == [Variant(
            bandwidth: 1_210_000, codecs: "avc1.64001f,mp4a.40.2", resolution: Resolution(width: 1280, height: 720),
            uri: "stream_0.m3u8")])
    }
}
