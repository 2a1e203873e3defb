import Foundation
import TestSupport
import Testing
@testable import HLSPlaylist

struct PlaylistErrorTests {
    /// Each case: playlist text and the exact error description it must produce.
    static let cases: [(text: String, error: String)] = [
        ("", "line 1: a playlist must start with #EXTM3U"),
        ("#EXT-X-VERSION:3\n#EXTM3U\n", "line 1: a playlist must start with #EXTM3U"),
        ("#EXTM3U\n#EXT-X-VERSION:3\n\n\n#EXT-X-STREAM-INF:RESOLUTION=1x1\na.m3u8\n#EXT-X-STREAM-INF:CODECS=\"x\"\nb.m3u8\n",
         "line 5: EXT-X-STREAM-INF needs BANDWIDTH"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n#EXT-X-VERSION:3\n#EXT-X-STREAM-INF:BANDWIDTH=2\nb.m3u8\n",
         "line 3: a URI line was expected after EXT-X-STREAM-INF"),
        ("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-STREAM-INF:BANDWIDTH=1\n",
         "line 4: a URI line was expected after EXT-X-STREAM-INF"),
        ("#EXTM3U\nstray.m3u8\n", "line 2: URI line 'stray.m3u8' does not follow EXT-X-STREAM-INF"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n" + String(repeating: "#EXTINF:2,\na.ts\n", count: 4) + "#EXTINF:abc,\nb.ts\n",
         "line 11: EXTINF duration 'abc' is not a number"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:-1,\na.ts\n", "line 3: EXTINF duration '-1' is not a number"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\n#EXTINF:2,\na.ts\n",
         "line 4: a URI line was expected after EXTINF on line 3"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:2,\n", "line 5: a URI line was expected after EXTINF"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\na.ts\n", "line 3: URI line 'a.ts' has no EXTINF before it"),
        ("#EXTM3U\n#EXTINF:2,\na.ts\n", "a media playlist needs EXT-X-TARGETDURATION"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:two\n", "line 2: EXT-X-TARGETDURATION 'two' is not a decimal integer"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-TARGETDURATION:3\n",
         "line 3: EXT-X-TARGETDURATION appears twice (first on line 2)"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:LIVE\n", "line 3: EXT-X-PLAYLIST-TYPE must be EVENT or VOD"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-BYTERANGE:100\n#EXTINF:2,\na.ts\n",
         "line 3: EXT-X-BYTERANGE without an offset must follow a byte range of the same URI"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-BYTERANGE:1@x\n", "line 3: EXT-X-BYTERANGE '1@x' is not length[@offset]"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-BYTERANGE:10@9223372036854775800\n#EXTINF:2,\na.ts\n",
         "line 3: EXT-X-BYTERANGE is too large"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=AES-256,URI=\"k\"\n",
         "line 3: EXT-X-KEY METHOD 'AES-256' is not NONE, AES-128, SAMPLE-AES or SAMPLE-AES-CTR"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=AES-128\n", "line 3: EXT-X-KEY needs URI"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=0xZZ\n",
         "line 3: EXT-X-KEY IV '0xZZ' is not 0x and 1 to 32 hex digits"),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MAP:BYTERANGE=\"1@0\"\n", "line 3: EXT-X-MAP needs URI"),
        ("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\",URI=\"a.m3u8\n",
         "line 2: EXT-X-MEDIA attribute list: the quoted value of URI is not closed"),
        ("#EXTM3U\n#EXT-X-MEDIA:TYPE=TEXT,GROUP-ID=\"a\",NAME=\"x\"\n",
         "line 2: EXT-X-MEDIA TYPE 'TEXT' is not AUDIO, VIDEO, SUBTITLES or CLOSED-CAPTIONS"),
        ("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,NAME=\"x\"\n", "line 2: EXT-X-MEDIA needs GROUP-ID"),
        ("#EXTM3U\n#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"s\",NAME=\"x\"\n",
         "line 2: EXT-X-MEDIA with TYPE=SUBTITLES needs URI"),
        ("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=a,NAME=\"x\"\n", "line 2: EXT-X-MEDIA GROUP-ID must be a quoted string"),
        ("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\",DEFAULT=yes\n",
         "line 2: EXT-X-MEDIA DEFAULT must be YES or NO, not 'yes'"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,BANDWIDTH=2\na\n",
         "line 2: EXT-X-STREAM-INF attribute list: BANDWIDTH appears twice"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=1280*720\na\n",
         "line 2: EXT-X-STREAM-INF RESOLUTION '1280*720' is not WIDTHxHEIGHT"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=-5\na\n", "line 2: EXT-X-STREAM-INF BANDWIDTH '-5' is not a decimal integer"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=99999999999999999999\na\n",
         "line 2: EXT-X-STREAM-INF BANDWIDTH '99999999999999999999' is not a decimal integer"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,FRAME-RATE=inf\na\n",
         "line 2: EXT-X-STREAM-INF FRAME-RATE 'inf' is not a number"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:bandwidth=1\na\n",
         "line 2: EXT-X-STREAM-INF attribute list: expected NAME=value at 'bandwidth=1'"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"a\"x\na\n",
         "line 2: EXT-X-STREAM-INF attribute list: a comma was expected after the quoted value of CODECS"),
        ("#EXTM3U\n#EXT-X-SESSION-KEY:METHOD=NONE\n", "line 2: EXT-X-SESSION-KEY cannot have METHOD=NONE"),
        ("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\na.m3u8\n#EXTINF:2,\n",
         "line 4: EXTINF cannot appear in the same playlist as EXT-X-STREAM-INF (line 2)"),
    ]

    @Test(arguments: 0..<cases.count)
    func reportsLineAndExpectation(index: Int) {
        let (text, expected) = Self.cases[index]
        do throws(PlaylistError) {
            let playlist = try Playlist.parse(text)
            Issue.record("expected '\(expected)', parsed \(playlist)")
        } catch {
            #expect(error.description == expected)
        }
    }

    @Test func wrongKindIsReported() {
        #expect(throws: PlaylistError(line: 0, "this is a master playlist, not a media playlist")) {
            try MediaPlaylist.parse("#EXTM3U\n")
        }
        #expect(throws: PlaylistError(line: 0, "this is a media playlist, not a master playlist")) {
            try MasterPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:1\n")
        }
    }

    @Test func refusesOversizedInputAndLines() {
        let longLine = "#EXTM3U\n#" + String(repeating: "x", count: 64 * 1024 + 1) + "\n"
        #expect(throws: PlaylistError(line: 2, "the line is 65538 bytes; the limit is 64 KiB")) {
            try Playlist.parse(longLine)
        }
        let huge = Data(repeating: UInt8(ascii: "\n"), count: 16 * 1024 * 1024 + 1)
        #expect(throws: PlaylistError(line: 0, "the playlist is 16777217 bytes; the limit is 16 MiB")) {
            try Playlist.parse(huge)
        }
        #expect(throws: PlaylistError.self) {
            try Playlist.parse(String(decoding: huge, as: UTF8.self))
        }
    }
}

extension PlaylistErrorTests {
    @Test func refusesControlCharacters() {
        #expect(throws: PlaylistError(line: 3, "control character U+000D is not allowed (RFC 8216 §4.1)")) {
            try Playlist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\ra.ts\n")
        }
        #expect(throws: PlaylistError(line: 2, "control character U+0000 is not allowed (RFC 8216 §4.1)")) {
            try Playlist.parse("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"a\u{0}\"\na\n")
        }
    }

    @Test(.cpuHeavy) func largeInputParsesInOnePass() throws {
        // ~2 MiB of segments (debug builds are slow; the 16 MiB guard is tested above).
        let segment = "#EXTINF:2.000000,\n#EXT-X-BYTERANGE:1000\nmain.ts\n"
        let count = (2 * 1024 * 1024) / segment.utf8.count
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-BYTERANGE:1000@0\n#EXTINF:2,\nmain.ts\n"
            + String(repeating: segment, count: count)
        let media = try MediaPlaylist.parse(text)
        #expect(media.segments.count == count + 1)
        #expect(media.segments.last?.byteRange == ByteRange(length: 1000, offset: 1000 * count))
    }
}
