import Testing
@testable import HLSPlaylist

/// Every EXT-X-KEY that applies to a segment is kept (RFC 8216 §4.3.2.4: one per KEYFORMAT).
struct MultiKeyTests {
    static let fairPlay = "com.apple.streamingkeydelivery"
    static let widevine = "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"
    static let playReady = "com.microsoft.playready"

    @Test func keepsEveryKeyOfAMultiDRMStreamInOrder() throws {
        let media = try MediaPlaylist.parse(Fixture.text("multidrm-cbcs-video.m3u8"))
        #expect(media.segments.count == 5)
        let first = media.segments[0].keys
        #expect(first.map(\.format) == [Self.fairPlay, Self.widevine, Self.playReady])
        #expect(first.map(\.keyFormatVersions) == ["1", "1", "1"])
        #expect(first.allSatisfy { $0.method == .sampleAES })
        #expect(first[0].uri == "skd://fps.example.com/4d5f0d7e2c8a4b1e9f3a6c2d8e0b1a7f")
        #expect(first[1].uri.hasPrefix("data:text/plain;base64,AAAAW3Bzc2g"))
        #expect(first[1].iv?.first == 0x4D)
        #expect(media.segments[1].keys == first && media.segments[2].keys == first)
        // Rotation: each new key replaces the key of its KEYFORMAT, in place.
        let rotated = media.segments[3].keys
        #expect(rotated.map(\.format) == [Self.fairPlay, Self.widevine, Self.playReady])
        #expect(rotated[0].uri == "skd://fps.example.com/f5b1c3a2e8d7f6a5b4c3d2e1f0a9b8c7")
        #expect(zip(rotated, first).allSatisfy { $0 != $1 })
        #expect(media.segments[3].keyOfFormat(Self.fairPlay) == rotated[0])
        #expect(media.segments[3].keyOfFormat("identity") == nil)
    }

    @Test func theFairPlayKeyListedLastIsKeptAndMethodNoneEndsEveryKey() throws {
        let media = try MediaPlaylist.parse(Fixture.text("multidrm-widevine-first.m3u8"))
        #expect(media.segments[0].keys.map(\.format) == [Self.widevine, Self.playReady, Self.fairPlay])
        #expect(media.segments[2].keyOfFormat(Self.fairPlay)?.uri == "skd://fps.example.com/4d5f0d7e2c8a4b1e9f3a6c2d8e0b1a7f")
        #expect(media.segments[3].keys.isEmpty)
    }

    @Test func renderWritesEveryKeyWhereTheSetChanges() throws {
        let media = try MediaPlaylist.parse(Fixture.text("multidrm-cbcs-video.m3u8"))
        let lines = media.render().split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("#EXT-X-KEY:") }.count == 6)  // two groups of three
        #expect(!lines.contains("#EXT-X-KEY:METHOD=NONE"))  // same KEYFORMATs: replacements suffice
        #expect(try MediaPlaylist.parse(media.render()) == media)
    }

    @Test func aSmallerKeySetIsWrittenAfterMethodNone() throws {
        let a = EncryptionKey(method: .sampleAES, uri: "skd://a/1", keyFormat: Self.fairPlay)
        let b = EncryptionKey(method: .sampleAES, uri: "data:,wv", keyFormat: Self.widevine)
        let media = MediaPlaylist(targetDuration: 4, segments: [
            MediaSegment(duration: 4, uri: "0.ts", keys: [a, b]),
            MediaSegment(duration: 4, uri: "1.ts", keys: [b]),
            MediaSegment(duration: 4, uri: "2.ts", keys: [b, a]),
            MediaSegment(duration: 4, uri: "3.ts"),
        ])
        let keyLines = media.render().split(separator: "\n").filter { $0.hasPrefix("#EXT-X-KEY") }
        #expect(keyLines.count == 2 + 2 + 3 + 1)
        #expect(keyLines.filter { $0 == "#EXT-X-KEY:METHOD=NONE" }.count == 3)
        #expect(try MediaPlaylist.parse(media.render()) == media)
    }

    @Test func aCENCStreamListsWidevineAndPlayReadyKeysWithSampleAESCTR() throws {
        let media = try MediaPlaylist.parse(Fixture.text("cmaf-cenc-widevine-playready.m3u8"))
        #expect(media.segments.allSatisfy { $0.keys.map(\.method) == [.sampleAESCTR, .sampleAESCTR] })
        #expect(media.segments[0].keys.map(\.format) == [Self.widevine, Self.playReady])
        #expect(media.segments[2].unknownTags == ["#EXT-X-GAP"])
        #expect(media.render().contains("#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI=\"data:text/plain;base64,"))
    }

    @Test func masterSessionKeysOfEveryFormat() throws {
        let master = try MasterPlaylist.parse(Fixture.text("multidrm-master.m3u8"))
        #expect(master.sessionKeys.map(\.format) == [Self.fairPlay, Self.widevine, Self.playReady])
    }
}
