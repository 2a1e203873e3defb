import FixtureOrigin
import Testing

@Suite struct ContentPathTests {
    @Test func parsesEveryPathOfTheLayout() {
        #expect(ContentPath("/videos") == .videoList)
        #expect(ContentPath("/videos/clear") == .video(id: "clear"))
        #expect(ContentPath("/videos/clear/master.m3u8") == .masterPlaylist(videoID: "clear"))
        #expect(ContentPath("/videos/clear/400k/index.m3u8") == .mediaPlaylist(videoID: "clear", stream: "400k"))
        #expect(ContentPath("/videos/clear/400k/seg12.ts") == .segment(videoID: "clear", stream: "400k", index: 12))
        #expect(ContentPath("/videos/m/subs/de/index.m3u8") == .subtitlePlaylist(videoID: "m", language: "de"))
        #expect(ContentPath("/videos/m/subs/de/seg0.vtt") == .subtitleSegment(videoID: "m", language: "de", index: 0))
        #expect(ContentPath("/videos/clear/key") == .key(videoID: "clear"))
        #expect(ContentPath("/videos/clear/poster.png") == .poster(videoID: "clear"))
        #expect(ContentPath("/videos/clear/thumb.png") == .thumbnail(videoID: "clear"))
        #expect(ContentPath("/videos/clear/manifest.json") == .hashManifest(videoID: "clear"))
    }

    @Test func ignoresTheQueryAndFragment() {
        #expect(ContentPath("/videos/clear/master.m3u8?token=1") == .masterPlaylist(videoID: "clear"))
        #expect(ContentPath("/videos#top") == .videoList)
    }

    @Test func canonicalPathsRoundTrip() {
        let paths: [ContentPath] = [
            .videoList, .video(id: "a"), .masterPlaylist(videoID: "a"), .mediaPlaylist(videoID: "a", stream: "audio_fr"),
            .segment(videoID: "a", stream: "400k", index: 3), .subtitlePlaylist(videoID: "a", language: "en"),
            .subtitleSegment(videoID: "a", language: "en", index: 10), .key(videoID: "a"), .poster(videoID: "a"),
            .thumbnail(videoID: "a"), .hashManifest(videoID: "a"),
        ]
        for path in paths { #expect(ContentPath(path.path) == path) }
    }

    @Test(arguments: [
        "/videos/../etc/passwd", "/videos/clear/../../key", "/videos/./clear", "/videos//clear",
        "/videos/clear/", "//videos", "/videos/%2e%2e/clear", "/videos/%2E%2E/x", "/videos/clear%2Fkey",
        "/videos/clear\\..\\key", "videos/clear", "", "/", "/other", "/videos/clear/400k/seg01.ts",
        "/videos/clear/400k/seg-1.ts", "/videos/clear/400k/segx.ts", "/videos/clear/400k/seg.ts",
        "/videos/clear/400k/index.m3u8/x", "/videos/cl ear", "/videos/clé",
    ])
    func refusesTraversalAndAnythingOutsideTheLayout(path: String) {
        #expect(ContentPath(path) == nil)
        #expect(contentStore.resource(at: path) == nil)
    }
}
