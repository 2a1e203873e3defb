import FixtureOrigin
import Foundation
import HLSPlaylist
import Testing

@Suite struct CatalogPlaylistTests {
    private func playlist(_ path: String) throws -> Playlist {
        let resource = try #require(contentStore.resource(at: path))
        #expect(resource.contentType == "application/vnd.apple.mpegurl")
        return try Playlist.parse(Data(resource.bytes))
    }

    private func isRelative(_ uri: String) -> Bool {
        !uri.contains("://") && !uri.hasPrefix("/")
    }

    @Test func masterPlaylistParsesBackWithVariantsAndRelativeURIs() throws {
        guard case .master(let master) = try playlist("/videos/clear/master.m3u8") else {
            Issue.record("not a master playlist")
            return
        }
        #expect(master.variants.map(\.uri) == [
            "400k/index.m3u8", "1200k/index.m3u8", "3000k/index.m3u8", "6000k/index.m3u8", "audio/index.m3u8",
        ])
        let top = try #require(master.variants.first { $0.uri == "6000k/index.m3u8" })
        #expect(top.bandwidth == 6_000_000)
        #expect(top.averageBandwidth == 5_400_000)
        #expect(top.resolution == Resolution(width: 1920, height: 1080))
        #expect(top.codecList == ["avc1.640028", "mp4a.40.2"])
        let audioOnly = try #require(master.variants.last)
        #expect(audioOnly.resolution == nil)
        #expect(audioOnly.codecs == "mp4a.40.2")
        #expect(master == contentCatalog.masterPlaylist(for: contentCatalog.videos[0]))
    }

    @Test func multilingualMasterHasAudioAndSubtitleRenditions() throws {
        guard case .master(let master) = try playlist("/videos/multilang/master.m3u8") else {
            Issue.record("not a master playlist")
            return
        }
        let audio = master.renditions(ofType: .audio, inGroup: "aud")
        #expect(audio.compactMap(\.language) == ["en", "fr", "es"])
        #expect(audio.filter(\.isDefault).count == 1)
        let subtitles = master.renditions(ofType: .subtitles, inGroup: "subs")
        #expect(subtitles.compactMap(\.language) == ["en", "de"])
        #expect(master.variants.allSatisfy { $0.audio == "aud" })
        #expect(master.variants.filter { $0.resolution != nil }.allSatisfy { $0.subtitles == "subs" })
        let uris = master.renditions.compactMap(\.uri) + master.variants.map(\.uri)
        #expect(uris.allSatisfy(isRelative))
        // Every URI the master names resolves to a playlist the store serves.
        for uri in uris {
            #expect(contentStore.resource(at: "/videos/multilang/\(uri)") != nil, "\(uri)")
        }
    }

    @Test func mediaPlaylistsAreVODWithEndListAndTheRightSegmentCount() throws {
        for video in contentCatalog.videos {
            let count = Int((video.duration / contentConfiguration.segmentDuration).rounded(.up))
            for stream in video.streamNames {
                guard case .media(let media) = try playlist("/videos/\(video.id)/\(stream)/index.m3u8") else {
                    Issue.record("not a media playlist")
                    return
                }
                #expect(media.playlistType == .vod)
                #expect(media.endList)
                #expect(media.segments.count == count)
                #expect(media.targetDuration == 6)
                #expect(abs(media.totalDuration - video.duration) < 0.001)
                #expect(media.segments.map(\.uri) == (0..<count).map { "seg\($0).ts" })
            }
        }
    }

    @Test func protectedPlaylistsCarryAnExplicitIVAndTheRightKeyURI() throws {
        guard case .media(let skd) = try playlist("/videos/protected/1200k/index.m3u8") else {
            Issue.record("not a media playlist")
            return
        }
        for (index, segment) in skd.segments.enumerated() {
            #expect(segment.keys.count == 1)
            let key = try #require(segment.keys.first)
            #expect(key.method == .aes128)
            #expect(key.uri.hasPrefix("skd://protected/"))
            #expect(key.keyFormat == "com.apple.streamingkeydelivery")
            #expect(key.iv == Catalog.segmentIV(index))
        }
        guard case .media(let http) = try playlist("/videos/http-key/400k/index.m3u8") else {
            Issue.record("not a media playlist")
            return
        }
        #expect(http.segments.allSatisfy { $0.keys.map(\.uri) == ["../key"] && $0.keys.first?.keyFormat == nil })
        guard case .media(let clear) = try playlist("/videos/clear/400k/index.m3u8") else {
            Issue.record("not a media playlist")
            return
        }
        #expect(clear.segments.allSatisfy { $0.keys.isEmpty })
    }

    @Test func subtitlePlaylistsListWebVTTSegmentsWithCues() throws {
        guard case .media(let media) = try playlist("/videos/multilang/subs/de/index.m3u8") else {
            Issue.record("not a media playlist")
            return
        }
        #expect(media.endList)
        #expect(media.segments.count == 11)  // 64 s
        #expect(media.segments.first?.uri == "seg0.vtt")
        let vtt = try #require(contentStore.resource(at: "/videos/multilang/subs/de/seg1.vtt"))
        #expect(vtt.contentType == "text/vtt")
        let text = String(decoding: vtt.bytes, as: UTF8.self)
        #expect(text.hasPrefix("WEBVTT\n"))
        #expect(text.contains("00:00:06.000 --> 00:00:08.000"))
        #expect(text.contains("00:00:10.000 --> 00:00:12.000"))
        #expect(text.contains("[de] Multilingual Sample"))
        let last = try #require(contentStore.resource(at: "/videos/multilang/subs/de/seg10.vtt"))
        #expect(String(decoding: last.bytes, as: UTF8.self).contains("00:01:02.000 --> 00:01:04.000"))
        #expect(contentStore.resource(at: "/videos/multilang/subs/fr/index.m3u8") == nil)
        #expect(contentStore.resource(at: "/videos/multilang/subs/de/seg11.vtt") == nil)
    }
}
