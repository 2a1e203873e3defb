import Testing
@testable import HLSPlaylist

struct MediaPlaylistTests {
    @Test func parsesEncryptedByteRangeVODWithMap() throws {
        let media = try MediaPlaylist.parse(Fixture.text("vod-aes128-byterange.m3u8"))
        #expect(media.version == 7)
        #expect(media.targetDuration == 4)
        #expect(media.mediaSequence == 0)
        #expect(media.playlistType == .vod)
        #expect(media.independentSegments)
        #expect(media.endList)
        #expect(media.segments.count == 4)
        #expect(media.totalDuration == 13.75)

        let key = EncryptionKey(
            method: .aes128, uri: "skd://key-42", iv: Array(0...15), keyFormat: "identity", keyFormatVersions: "1")
        let map = MediaInitializationSection(uri: "main.mp4", byteRange: ByteRange(length: 720, offset: 0))
        #expect(media.segments[0] == MediaSegment(
            duration: 4, title: "intro", uri: "main.mp4", byteRange: ByteRange(length: 100_000, offset: 720),
            keys: [key], map: map))
        // Offsets left out continue where the previous range of the same resource ended.
        #expect(media.segments[1].byteRange == ByteRange(length: 120_000, offset: 100_720))
        #expect(media.segments[2].byteRange == ByteRange(length: 90_000, offset: 220_720))
        #expect(media.segments[2].duration == 3.5)
        #expect(media.segments[1].keys == [key] && media.segments[2].keys == [key])
        // METHOD=NONE ends encryption; the map stays in effect.
        #expect(media.segments[3].keys.isEmpty)
        #expect(media.segments[3].map == map)
        #expect(media.segments[3].title == "credits")
        #expect(media.segments[3].byteRange?.httpRangeHeader == "bytes=0-4999")
    }

    @Test func keyChangesAndDiscontinuities() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-MEDIA-SEQUENCE:100
            #EXT-X-PLAYLIST-TYPE:EVENT
            #EXTINF:6,
            a.ts
            #EXT-X-KEY:METHOD=SAMPLE-AES,URI="https://k/1",IV=0x1
            #EXTINF:6,
            b.ts
            #EXT-X-DISCONTINUITY
            #EXT-X-KEY:METHOD=AES-128,URI="https://k/2"
            #EXTINF:5.5,
            c.ts
            """
        let media = try MediaPlaylist.parse(text)
        #expect(media.mediaSequence == 100)
        #expect(media.playlistType == .event)
        #expect(!media.endList)
        #expect(media.segments.map { $0.keys.map(\.uri) } == [[], ["https://k/1"], ["https://k/2"]])
        #expect(media.segments[1].keys.first?.iv == Array(repeating: 0, count: 15) + [1])  // left-padded
        #expect(media.segments.map(\.discontinuity) == [false, false, true])
    }

    @Test func rendersKeyOnlyWhereItChanges() {
        let key = EncryptionKey(method: .aes128, uri: "k.key", iv: Array(repeating: 0xAB, count: 16))
        let media = MediaPlaylist(
            version: 3, targetDuration: 2, playlistType: .vod, endList: true,
            segments: [
                MediaSegment(duration: 2, uri: "s0.ts", keys: [key]),
                MediaSegment(duration: 2, uri: "s1.ts", keys: [key]),
                MediaSegment(duration: 1.5, title: "last", uri: "s2.ts"),
            ])
        #expect(media.render() == """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-KEY:METHOD=AES-128,URI="k.key",IV=0xabababababababababababababababab
            #EXTINF:2.0,
            s0.ts
            #EXTINF:2.0,
            s1.ts
            #EXT-X-KEY:METHOD=NONE
            #EXTINF:1.5,last
            s2.ts
            #EXT-X-ENDLIST

            """)
    }

    @Test func acceptsCRLFAndBOM() throws {
        let text = "\u{FEFF}#EXTM3U\r\n#EXT-X-TARGETDURATION:2\r\n#EXTINF:2.0,\r\na.ts\r\n#EXT-X-ENDLIST\r\n"
        let media = try MediaPlaylist.parse(text)
        #expect(media.segments.map(\.uri) == ["a.ts"])
        #expect(media.endList)
    }
}
