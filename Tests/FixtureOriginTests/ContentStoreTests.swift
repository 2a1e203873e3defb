import FixtureOrigin
import Foundation
import TestSupport
import Testing

@Suite struct ContentStoreTests {
    @Test(.cpuHeavy) func answersEveryPathOfEveryVideoWithTheRightType() throws {
        for video in contentCatalog.videos {
            for path in contentStore.paths(of: video) {
                let resource = try #require(contentStore.resource(at: path.path), "\(path.path)")
                let expected: String =
                    switch path {
                    case .videoList, .video, .hashManifest: "application/json"
                    case .masterPlaylist, .mediaPlaylist, .subtitlePlaylist: "application/vnd.apple.mpegurl"
                    case .segment: "video/mp2t"
                    case .subtitleSegment: "text/vtt"
                    case .key: "application/octet-stream"
                    case .poster, .thumbnail: "image/png"
                    }
                #expect(resource.contentType == expected)
                #expect(resource.lastModified == contentConfiguration.lastModified)
            }
        }
    }

    @Test func etagsAreStrongAndFollowTheBytes() throws {
        let a = try #require(contentStore.resource(at: "/videos/clear/400k/seg0.ts"))
        let again = try #require(contentStore.resource(at: "/videos/clear/400k/seg0.ts"))
        let b = try #require(contentStore.resource(at: "/videos/clear/400k/seg1.ts"))
        #expect(a.etag.hasPrefix("\"") && a.etag.hasSuffix("\"") && !a.etag.hasPrefix("W/"))
        #expect(a.etag == "\"\(a.sha256)\"")
        #expect(a == again)
        #expect(a.etag != b.etag)
    }

    @Test func unknownThingsAreNil() {
        #expect(contentStore.resource(at: "/videos/missing") == nil)
        #expect(contentStore.resource(at: "/videos/missing/master.m3u8") == nil)
        #expect(contentStore.resource(at: "/videos/clear/9000k/index.m3u8") == nil)
        #expect(contentStore.resource(at: "/videos/clear/400k/seg21.ts") == nil)  // 21 segments: 0...20
        #expect(contentStore.resource(at: "/videos/clear/400k/seg20.ts") != nil)
        #expect(contentStore.resource(at: "/videos/clear/subs/en/index.m3u8") == nil)
        #expect(contentStore.resource(at: "/videos/clear/audio_en/index.m3u8") == nil)
        #expect(contentStore.resource(at: "/videos/multilang/audio_en/seg0.ts") != nil)
    }

    @Test func theHTTPKeyIsServedOnlyForHTTPKeyVideos() throws {
        let key = try #require(contentStore.resource(at: "/videos/http-key/key"))
        #expect(key.bytes == contentCatalog.contentKey(for: "http-key"))
        #expect(contentStore.resource(at: "/videos/protected/key") == nil)  // skd: only a license answers
        #expect(contentStore.resource(at: "/videos/clear/key") == nil)
    }

    @Test func pathsOfAVideoCoverItsStreamsTracksAndImages() throws {
        let multilang = try #require(contentCatalog.video(withID: "multilang"))
        let paths = contentStore.paths(of: multilang).map(\.path)
        #expect(Set(paths).count == paths.count)
        // JSON, master, 8 streams × (playlist + 11 segments), 2 tracks × (playlist + 11), 2 images.
        #expect(paths.count == 2 + 8 * 12 + 2 * 12 + 2)
        #expect(paths.contains("/videos/multilang/audio_es/seg10.ts"))
        let httpKey = try #require(contentCatalog.video(withID: "http-key"))
        #expect(contentStore.paths(of: httpKey).contains(.key(videoID: "http-key")))
    }
}
