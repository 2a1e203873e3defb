import Foundation
import Testing
@testable import HLSPlaylist

struct RoundTripTests {
    @Test(arguments: Fixture.all)
    func fixtureRoundTrips(name: String) throws {
        let parsed = try Playlist.parse(Fixture.text(name))
        let rendered = parsed.render()
        #expect(rendered.hasPrefix("#EXTM3U\n"))
        #expect(try Playlist.parse(rendered) == parsed)
        #expect(try Playlist.parse(rendered).render() == rendered)  // rendering is stable
    }

    @Test func builtPlaylistsRoundTrip() throws {
        let key = EncryptionKey(method: .sampleAES, uri: "skd://a", iv: Array(16..<32), keyFormat: "com.apple.streamingkeydelivery")
        let media = MediaPlaylist(
            version: 6, targetDuration: 10, mediaSequence: 7, playlistType: .event, independentSegments: true,
            segments: [
                MediaSegment(duration: 0.000012345, title: "tiny, with comma", uri: "a.ts"),
                MediaSegment(duration: 9.999, uri: "b.ts", byteRange: ByteRange(length: 10, offset: 5), keys: [key],
                             map: MediaInitializationSection(uri: "i.mp4"), discontinuity: true),
                MediaSegment(duration: 1e16, uri: "https://cdn/c.ts", keys: [key],
                             map: MediaInitializationSection(uri: "i.mp4", byteRange: ByteRange(length: 3, offset: 0))),
            ])
        #expect(try MediaPlaylist.parse(media.render()) == media)

        let master = MasterPlaylist(
            version: 7, independentSegments: true, sessionKeys: [key],
            renditions: [Rendition(type: .closedCaptions, groupID: "cc", name: "CC", instreamID: "CC1"),
                         Rendition(type: .subtitles, groupID: "s", name: "Forced", language: "pt-BR",
                                   associatedLanguage: "pt", forced: true, uri: "s.m3u8")],
            variants: [Variant(bandwidth: 1, averageBandwidth: 1, codecs: "a,b", resolution: Resolution(width: 1, height: 2),
                               frameRate: 23.976, audio: "a", video: "v", subtitles: "s", uri: "v.m3u8?token=1,2")],
            iFrameVariants: [IFrameVariant(bandwidth: 5, averageBandwidth: 4, codecs: "c", video: "v", uri: "i.m3u8")])
        #expect(try MasterPlaylist.parse(master.render()) == master)
    }

    @Test func decimalFormattingNeverUsesExponents() {
        for value in [0.0, 1, 2.5, 1e-7, 1.25e-5, 1e15, 1e16, 1.7976931348623157e308, Double.leastNonzeroMagnitude, 123456.789] {
            let text = Scalars.decimal(value)
            #expect(!text.contains("e"), "\(text)")
            #expect(Scalars.float(text) == value, "\(text)")
        }
    }

    @Test func aSegmentEncodedWithTheFormerSingleKeyDecodes() throws {
        // What a download plan kept by an engine from before multi-key segments holds.
        let json = #"{"duration":4,"title":"","uri":"a.ts","discontinuity":false,"key":{"method":"AES-128","uri":"k"}}"#
        let segment = try JSONDecoder().decode(MediaSegment.self, from: Data(json.utf8))
        #expect(segment == MediaSegment(duration: 4, uri: "a.ts", keys: [EncryptionKey(method: .aes128, uri: "k")]))
        let playlist = #"{"targetDuration":4,"mediaSequence":0,"independentSegments":false,"endList":true,"segments":[\#(json)]}"#
        #expect(try JSONDecoder().decode(MediaPlaylist.self, from: Data(playlist.utf8)).segments == [segment])
        let master = #"{"independentSegments":false,"sessionKeys":[],"renditions":[],"variants":[],"iFrameVariants":[]}"#
        #expect(try JSONDecoder().decode(MasterPlaylist.self, from: Data(master.utf8)) == MasterPlaylist())
    }

    @Test func codableRoundTrip() throws {
        for name in Fixture.all {
            let playlist = try Playlist.parse(Fixture.text(name))
            let data = try JSONEncoder().encode(playlist)
            #expect(try JSONDecoder().decode(Playlist.self, from: data) == playlist, "\(name)")
        }
    }
}
