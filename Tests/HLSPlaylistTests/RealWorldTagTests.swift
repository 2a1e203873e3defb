import Testing
@testable import HLSPlaylist

/// The RFC 8216 tags and attributes real playlists carry are modelled and written back.
struct RealWorldTagTests {
    @Test func masterKeepsStartSessionDataCaptionsHDCPAndCharacteristics() throws {
        let master = try MasterPlaylist.parse(Fixture.text("multidrm-master.m3u8"))
        #expect(master.start == StartPoint(timeOffset: -12.5, precise: true))
        #expect(master.sessionData == [
            SessionData(dataID: "com.example.title", value: "Big Buck Bunny", language: "en"),
            SessionData(dataID: "com.example.lyrics", uri: "lyrics.json"),
        ])
        #expect(master.variants.map(\.closedCaptions) == [.group("cc"), ClosedCaptions.none])
        #expect(master.variants.map(\.hdcpLevel) == ["NONE", "TYPE-0"])
        #expect(master.iFrameVariants.map(\.hdcpLevel) == ["NONE", "TYPE-0"])
        #expect(master.renditions[1].characteristics == "public.accessibility.describes-video")
        #expect(master.unknownTags == [#"#EXT-X-CONTENT-STEERING:SERVER-URI="https://steer.example.com/v1/steer",PATHWAY-ID="CDN-A""#])
        let rendered = master.render()
        for line in [
            "#EXT-X-START:TIME-OFFSET=-12.5,PRECISE=YES", #"#EXT-X-SESSION-DATA:DATA-ID="com.example.lyrics",URI="lyrics.json""#,
            "CLOSED-CAPTIONS=NONE", #"CLOSED-CAPTIONS="cc""#, "HDCP-LEVEL=TYPE-0",
            #"CHARACTERISTICS="public.accessibility.describes-video""#, "#EXT-X-CONTENT-STEERING:",
        ] {
            #expect(rendered.contains(line), "render() dropped \(line)")
        }
    }

    @Test func sessionDataNeedsExactlyOneOfValueAndURI() throws {
        // SESSION-DATA is metadata: both or neither is a warning, and the tag is kept as written.
        for tag in [#"#EXT-X-SESSION-DATA:DATA-ID="a",VALUE="v",URI="u""#, #"#EXT-X-SESSION-DATA:DATA-ID="a""#] {
            let master = try MasterPlaylist.parse("#EXTM3U\n\(tag)\n")
            #expect(master.sessionData.isEmpty && master.unknownTags == [tag])
            #expect(master.warnings == [PlaylistWarning(
                line: 2, tag: "EXT-X-SESSION-DATA",
                "EXT-X-SESSION-DATA needs exactly one of VALUE and URI; the tag is kept as written")])
        }
        #expect(throws: PlaylistError.self) {
            try MasterPlaylist.parse("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,CLOSED-CAPTIONS=cc\na.m3u8\n")
        }
    }

    @Test func liveCaptureKeepsDatesDateRangesAndDiscontinuityNumbers() throws {
        let media = try MediaPlaylist.parse(Fixture.text("live-capture-dangling.m3u8"))
        #expect(media.mediaSequence == 28712 && media.discontinuitySequence == 14 && !media.endList)
        #expect(media.segments.map(\.programDateTime) == [
            "2024-03-09T18:41:06.000Z", "2024-03-09T18:41:12.000Z", "2024-03-09T18:41:18.000Z", nil,
        ])
        #expect(media.segments.map(\.discontinuity) == [false, false, true, false])
        let range = try #require(media.segments[2].dateRanges.first)
        #expect(range.id == "splice-6FFFFFF0" && range.classID == "com.example.ad" && range.plannedDuration == 30)
        #expect(range.scte35Out?.hasPrefix("0xFC3020") == true)
        #expect(range.clientAttributes == [
            .init(name: "X-AD-ID", value: "ab12-cd34", isQuoted: true),
            .init(name: "X-COM-EXAMPLE-PRIORITY", value: "3", isQuoted: false),
        ])
        #expect(media.segments[3].unknownTags == ["#EXT-X-CUE-OUT-CONT:ElapsedTime=5.005,Duration=30"])
        let rendered = media.render()
        for line in ["#EXT-X-DISCONTINUITY-SEQUENCE:14", "#EXT-X-PROGRAM-DATE-TIME:2024-03-09T18:41:18.000Z",
                     "#EXT-X-DATERANGE:ID=\"splice-6FFFFFF0\"", "#EXT-X-CUE-OUT-CONT:ElapsedTime=5.005,Duration=30"] {
            #expect(rendered.contains(line), "render() dropped \(line)")
        }
    }

    @Test func aDanglingFinalEXTINFIsAWarningWhenLiveAndAnErrorInVOD() throws {
        let live = try MediaPlaylist.parse(Fixture.text("live-capture-dangling.m3u8"))
        #expect(live.segments.count == 4)
        #expect(live.warnings.map(\.line) == [21])
        #expect(live.warnings.first?.message.contains("no URI") == true)
        let ended = try Fixture.text("live-capture-dangling.m3u8") + "#EXT-X-ENDLIST\n"
        #expect(throws: PlaylistError(line: 22, "a URI line was expected after EXTINF")) { try MediaPlaylist.parse(ended) }
        let vod = try Fixture.text("live-capture-dangling.m3u8").replacingOccurrences(
            of: "#EXT-X-VERSION:3", with: "#EXT-X-VERSION:3\n#EXT-X-PLAYLIST-TYPE:VOD")
        #expect(throws: PlaylistError.self) { try MediaPlaylist.parse(vod) }
        // Warnings describe the text read; they are not part of the playlist's value.
        #expect(try MediaPlaylist.parse(live.render()).warnings.isEmpty)
    }

    @Test func deltaUpdateNumbersSegmentsAfterTheSkip() throws {
        let media = try MediaPlaylist.parse(Fixture.text("llhls-delta-skip.m3u8"))
        #expect(media.skip == Skip(skippedSegments: 3, recentlyRemovedDateRanges: ["splice-1", "splice-2"]))
        #expect(media.segments.map(\.uri) == ["fileSequence269.mp4", "fileSequence270.mp4", "fileSequence271.mp4"])
        #expect((0..<3).map(media.mediaSequenceNumber(ofSegment:)) == [269, 270, 271])
        #expect(media.segments[0].unknownTags.count == 2)  // SERVER-CONTROL, PART-INF
        #expect(media.segments[2].unknownTags.count == 4)  // its parts
        #expect(media.trailingDateRanges.map(\.endOnNext) == [true])
        #expect(media.trailingTags.count == 4)  // the part in progress, a preload hint, two reports
        #expect(media.render().contains("#EXT-X-SKIP:SKIPPED-SEGMENTS=3,RECENTLY-REMOVED-DATERANGES=\"splice-1\tsplice-2\""))
        #expect(throws: PlaylistError.self) {
            try MediaPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n#EXT-X-SKIP:SKIPPED-SEGMENTS=1\n")
        }
    }

    @Test func iFramePlaylistsAreMarked() throws {
        let media = try MediaPlaylist.parse(Fixture.text("iframes-only.m3u8"))
        #expect(media.iFramesOnly)
        #expect(media.segments.map { $0.byteRange?.offset } == [376, 398312, 801516, 1128])
        #expect(media.render().contains("\n#EXT-X-I-FRAMES-ONLY\n"))
        #expect(try !MediaPlaylist.parse(Fixture.text("ffmpeg-vod-ts.m3u8")).iFramesOnly)
    }
}
