import Testing
@testable import HLSPlaylist

/// What a downloader needs stays strict beside the lenient metadata: in the playlists of
/// issue 24, a malformed attribute on a segment, key, map, variant or header tag is the
/// same `PlaylistError` as before.
struct NeededTagErrorTests {
    /// Each case: a fixture, a text in it, its malformed replacement, the exact error.
    static let cases: [(fixture: String, text: String, malformed: String, error: PlaylistError)] = [
        ("scte35-unquoted-id.m3u8", #"URI="https://keys.example.net/ch9/k5521""#, "URI=https://keys.example.net/ch9/k5521",
         PlaylistError(line: 5, "EXT-X-KEY URI must be a quoted string")),
        ("llhls-skip-unquoted-removed.m3u8", "SKIPPED-SEGMENTS=6", #"SKIPPED-SEGMENTS="6""#,
         PlaylistError(line: 7, "EXT-X-SKIP SKIPPED-SEGMENTS '6' is not a decimal integer")),
        ("llhls-skip-unquoted-removed.m3u8", #"#EXT-X-MAP:URI="init.mp4""#, "#EXT-X-MAP:URI=init.mp4",
         PlaylistError(line: 8, "EXT-X-MAP URI must be a quoted string")),
        ("daterange-stray-quote.m3u8", "#EXTINF:2.654,", #"#EXTINF:2.654","#,
         PlaylistError(line: 14, #"EXTINF duration '2.654"' is not a number"#)),
        ("daterange-stray-quote.m3u8", "#EXTINF:6.006,\nlive/5121.ts", "#EXTINF:6.006,\n#EXT-X-BYTERANGE:1000@x\nlive/5121.ts",
         PlaylistError(line: 10, "EXT-X-BYTERANGE '1000@x' is not length[@offset]")),
        ("llhls-delta-daterange-id-only.m3u8", "#EXT-X-MEDIA-SEQUENCE:1040", #"#EXT-X-MEDIA-SEQUENCE:"1040""#,
         PlaylistError(line: 6, #"EXT-X-MEDIA-SEQUENCE '"1040"' is not a decimal integer"#)),
        ("master-malformed-metadata.m3u8", "RESOLUTION=960x540", "RESOLUTION=960*540",
         PlaylistError(line: 9, "EXT-X-STREAM-INF RESOLUTION '960*540' is not WIDTHxHEIGHT")),
        ("master-malformed-metadata.m3u8", #"GROUP-ID="aud",NAME"#, "GROUP-ID=aud,NAME",
         PlaylistError(line: 8, "EXT-X-MEDIA GROUP-ID must be a quoted string")),
        ("master-malformed-metadata.m3u8", "#EXT-X-MEDIA:", "#EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI=skd://k1\n#EXT-X-MEDIA:",
         PlaylistError(line: 8, "EXT-X-SESSION-KEY URI must be a quoted string")),
    ]

    @Test(arguments: 0..<cases.count)
    func aMalformedAttributeTheEngineNeedsIsStillAnError(index: Int) throws {
        let (fixture, text, malformed, error) = Self.cases[index]
        let original = try Fixture.text(fixture)
        #expect(throws: Never.self) { try Playlist.parse(original) }
        try #require(original.contains(text), "\(fixture) has no \(text)")
        #expect(throws: error) { try Playlist.parse(original.replacingOccurrences(of: text, with: malformed)) }
    }
}
