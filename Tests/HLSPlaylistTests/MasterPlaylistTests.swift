import Testing
@testable import HLSPlaylist

struct MasterPlaylistTests {
    @Test func parsesRealisticMaster() throws {
        let master = try MasterPlaylist.parse(Fixture.text("master-multilang.m3u8"))
        #expect(master.version == 6)
        #expect(master.independentSegments)

        // Four video variants and one audio-only variant, in file order.
        #expect(master.variants.map(\.bandwidth) == [400_000, 1_200_000, 3_000_000, 6_000_000, 64_000])
        #expect(master.variants.map(\.averageBandwidth) == [350_000, 1_000_000, 2_600_000, 5_200_000, nil])
        #expect(master.variants[2].resolution == Resolution(width: 1280, height: 720))
        #expect(master.variants[2].frameRate == 29.97)
        #expect(master.variants[2].codecs == "avc1.64001f,mp4a.40.2")
        #expect(master.variants[2].codecList == ["avc1.64001f", "mp4a.40.2"])
        #expect(master.variants[3].uri == "video/1080p/index.m3u8")
        #expect(master.variants.allSatisfy { $0.audio == "aac" })
        #expect(master.variants[0].subtitles == "subs")

        let audioOnly = master.variants[4]
        #expect(audioOnly.resolution == nil)
        #expect(audioOnly.codecList == ["mp4a.40.2"])
        #expect(audioOnly.subtitles == nil)

        let audio = master.renditions(ofType: .audio, inGroup: "aac")
        #expect(audio.map(\.language) == ["en", "fr", "es"])
        #expect(audio.map(\.isDefault) == [true, false, false])
        #expect(audio.allSatisfy { $0.autoselect })
        #expect(audio[1].name == "Français")
        #expect(audio[2].name == "Español, doblado")  // a comma inside a quoted string
        #expect(audio[0].channels == "2")

        let subtitles = master.renditions(ofType: .subtitles, inGroup: "subs")
        #expect(subtitles.map(\.language) == ["en", "de"])
        #expect(subtitles.map(\.uri) == ["subs/en/index.m3u8", "subs/de/index.m3u8"])
        #expect(subtitles[0].isDefault && !subtitles[1].isDefault)

        #expect(master.iFrameVariants == [IFrameVariant(
            bandwidth: 86_000, codecs: "avc1.4d401e", resolution: Resolution(width: 640, height: 360),
            uri: "video/360p/iframes.m3u8")])
    }

    @Test func acceptsVideoAndClosedCaptionRenditionsAndSessionKeys() throws {
        let text = """
            #EXTM3U
            #EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI="skd://asset-1",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
            #EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID="cam",NAME="Angle 2",URI="angle2.m3u8"
            #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="English CC",LANGUAGE="en",INSTREAM-ID="CC1"
            #EXT-X-STREAM-INF:BANDWIDTH=800000,VIDEO="cam",CLOSED-CAPTIONS="cc"
            main.m3u8
            """
        let master = try MasterPlaylist.parse(text)
        #expect(master.sessionKeys == [EncryptionKey(
            method: .sampleAES, uri: "skd://asset-1", keyFormat: "com.apple.streamingkeydelivery",
            keyFormatVersions: "1")])
        #expect(master.renditions.map(\.type) == [.video, .closedCaptions])
        #expect(master.renditions[1].instreamID == "CC1")
        #expect(master.renditions[1].uri == nil)
        #expect(master.variants[0].video == "cam")
    }

    @Test func keepsUnknownTagsDropsComments() throws {
        let text = "#EXTM3U\n# a comment\n#EXT-X-FUTURE-TAG:X=1\n#EXT-X-STREAM-INF:BANDWIDTH=1,NEW-ATTR=\"x\"\na.m3u8\n"
        let master = try MasterPlaylist.parse(text)
        #expect(master == MasterPlaylist(variants: [Variant(bandwidth: 1, uri: "a.m3u8")], unknownTags: ["#EXT-X-FUTURE-TAG:X=1"]))
        #expect(master.render().contains("\n#EXT-X-FUTURE-TAG:X=1\n"))
    }

    @Test func justTheHeaderIsAnEmptyMaster() throws {
        #expect(try Playlist.parse("#EXTM3U\n") == .master(MasterPlaylist()))
    }

    @Test func rendersTagsInOrderWithHeaderFirst() throws {
        let master = MasterPlaylist(
            version: 4,
            renditions: [Rendition(type: .audio, groupID: "a", name: "English", language: "en", isDefault: true,
                                   autoselect: true, uri: "en.m3u8")],
            variants: [Variant(bandwidth: 1_200_000, resolution: Resolution(width: 640, height: 360),
                               frameRate: 25, audio: "a", uri: "360.m3u8")])
        #expect(master.render() == """
            #EXTM3U
            #EXT-X-VERSION:4
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",LANGUAGE="en",NAME="English",DEFAULT=YES,AUTOSELECT=YES,URI="en.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1200000,RESOLUTION=640x360,FRAME-RATE=25.0,AUDIO="a"
            360.m3u8

            """)
    }
}
