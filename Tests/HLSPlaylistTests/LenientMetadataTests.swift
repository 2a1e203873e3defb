import Testing
@testable import HLSPlaylist

/// A playlist players accept whose metadata tag is malformed (issue 24), and the warning
/// it must carry.
struct MalformedMetadataShape: Sendable, CustomTestStringConvertible {
    let fixture: String
    let line: Int
    let tag: String
    /// What is wrong: the start of the warning's message.
    let problem: String
    var testDescription: String { fixture }

    /// Line `number` (1-based) of `text`.
    static func line(_ number: Int, of text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.indices.contains(number - 1) ? String(lines[number - 1]) : ""
    }
}

/// A malformed metadata tag is a warning and is written back verbatim (see `PlaylistWarning`).
struct LenientMetadataTests {
    static let shapes: [MalformedMetadataShape] = [
        .init(fixture: "llhls-delta-daterange-id-only.m3u8", line: 8, tag: "EXT-X-DATERANGE",
              problem: "EXT-X-DATERANGE needs START-DATE"),
        .init(fixture: "daterange-stray-quote.m3u8", line: 8, tag: "EXT-X-DATERANGE",
              problem: #"EXT-X-DATERANGE DURATION '14.666000"' is not a number"#),
        .init(fixture: "scte35-unquoted-id.m3u8", line: 8, tag: "EXT-X-DATERANGE",
              problem: "EXT-X-DATERANGE ID must be a quoted string"),
        .init(fixture: "llhls-skip-unquoted-removed.m3u8", line: 7, tag: "EXT-X-SKIP",
              problem: "EXT-X-SKIP RECENTLY-REMOVED-DATERANGES must be a quoted string"),
        .init(fixture: "master-malformed-metadata.m3u8", line: 6, tag: "EXT-X-SESSION-DATA",
              problem: "EXT-X-SESSION-DATA VALUE must be a quoted string"),
    ]

    @Test(arguments: shapes)
    func parsesWithAWarningNamingTheLineTheTagAndTheProblem(shape: MalformedMetadataShape) throws {
        let text = try Fixture.text(shape.fixture)
        let playlist = try Playlist.parse(text)
        let warning = try #require(
            playlist.warnings.first { $0.line == shape.line }, "no warning on line \(shape.line): \(playlist.warnings)")
        #expect(warning.tag == shape.tag)
        #expect(warning.message.hasPrefix(shape.problem + "; "), "\(warning.message)")
        #expect(warning.description.hasPrefix("line \(shape.line): \(shape.problem)"))
        #expect(MalformedMetadataShape.line(shape.line, of: text).hasPrefix("#\(shape.tag):"), "line \(shape.line) is not the tag's")
    }

    @Test(arguments: shapes)
    func rendersTheMalformedLineVerbatim(shape: MalformedMetadataShape) throws {
        let text = try Fixture.text(shape.fixture)
        let playlist = try Playlist.parse(text)
        let malformed = MalformedMetadataShape.line(shape.line, of: text)
        let rendered = playlist.render()
        #expect(rendered.split(separator: "\n").contains { $0 == malformed }, "render() lost \(malformed)\n\(rendered)")
        let again = try Playlist.parse(rendered)
        #expect(again == playlist)
        #expect(again.render() == rendered)
        // The line written back reads back the same way: the same warnings, on lines that hold their tags.
        let summary = { (p: Playlist) in p.warnings.map { "\($0.tag ?? "") \($0.message)" }.sorted() }
        #expect(summary(again) == summary(playlist))
        for warning in again.warnings {
            #expect(MalformedMetadataShape.line(warning.line, of: rendered).hasPrefix("#\(warning.tag ?? "?"):"))
        }
    }

    @Test func aDeltaUpdateKeepsAnIDOnlyDateRangeAndNumbersItsSegments() throws {
        let media = try MediaPlaylist.parse(Fixture.text("llhls-delta-daterange-id-only.m3u8"))
        #expect(media.skip == Skip(skippedSegments: 9))
        #expect((0..<3).map(media.mediaSequenceNumber(ofSegment:)) == [1049, 1050, 1051])
        #expect(media.segments[0].unknownTags == [
            "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=36.0,CAN-SKIP-DATERANGES=YES,PART-HOLD-BACK=3.0",
            "#EXT-X-PART-INF:PART-TARGET=1.0", #"#EXT-X-DATERANGE:ID="promo-88""#,
        ])
        #expect(media.segments[0].dateRanges.isEmpty && media.segments[0].programDateTime == "2025-06-14T08:30:36.000Z")
        #expect(media.segments[2].dateRanges.map(\.id) == ["chapter-12"])
        // A tag it does not model is not read, so its unquoted URI is kept without a warning.
        #expect(media.trailingTags.last == "#EXT-X-RENDITION-REPORT:URI=../audio/live.m3u8,LAST-MSN=1051,LAST-PART=0")
        #expect(media.warnings.map(\.line) == [8])
    }

    @Test func aStrayQuoteLeavesTheOtherDateRangeRead() throws {
        let media = try MediaPlaylist.parse(Fixture.text("daterange-stray-quote.m3u8"))
        #expect(media.segments.map(\.uri) == ["live/5120.ts", "live/5121.ts", "live/5122.ts", "live/5123.ts"])
        #expect(media.segments[1].dateRanges.isEmpty)
        #expect(media.segments[1].unknownTags.count == 1 && media.segments[1].unknownTags[0].contains(#"DURATION=14.666000""#))
        #expect(media.segments[3].dateRanges == [DateRange(
            id: "break-31", classID: "com.example.break", startDate: "2025-02-01T20:00:06.006Z",
            endDate: "2025-02-01T20:00:20.672Z")])
        #expect(media.warnings.count == 1)
    }

    @Test func unquotedSCTE35IDsAreKeptAndTheKeyStillApplies() throws {
        let media = try MediaPlaylist.parse(Fixture.text("scte35-unquoted-id.m3u8"))
        #expect(media.warnings.map(\.line) == [8, 14])
        #expect(media.warnings.map(\.tag) == ["EXT-X-DATERANGE", "EXT-X-DATERANGE"])
        #expect(media.segments.map { $0.keys.map(\.uri) } == Array(repeating: ["https://keys.example.net/ch9/k5521"], count: 3))
        #expect(media.segments[1].unknownTags.first?.hasPrefix("#EXT-X-DATERANGE:ID=splice-4000C76, START-DATE=") == true)
        #expect(media.trailingTags.count == 1 && media.trailingTags[0].contains("SCTE35-IN=0xFC30"))
        // Spaces after the commas alone are no problem: with its ID quoted, the range is read.
        #expect(media.segments[2].dateRanges == [DateRange(id: "slate-77", startDate: "2025-04-22T17:15:00.120Z", duration: 10)])
    }

    @Test func anUnquotedRecentlyRemovedListStillCountsTheSkippedSegments() throws {
        var media = try MediaPlaylist.parse(Fixture.text("llhls-skip-unquoted-removed.m3u8"))
        #expect(media.skip == Skip(skippedSegments: 6))
        #expect(media.mediaSequenceNumber(ofSegment: 0) == 706)  // the implicit IV of s706.m4s
        #expect(media.segments.map(\.uri) == ["s706.m4s", "s707.m4s"])
        #expect(media.segments.allSatisfy { $0.keys.first?.method == .sampleAES && $0.map?.uri == "init.mp4" })
        #expect(media.warnings.count == 1)
        #expect(media.warnings.first?.message.contains("RECENTLY-REMOVED-DATERANGES is ignored") == true)
        // Once the value changes, the tag is written from the value.
        media.skip?.skippedSegments = 7
        #expect(media.render().contains("\n#EXT-X-SKIP:SKIPPED-SEGMENTS=7\n"))
        media.skip = Skip(skippedSegments: 6, recentlyRemovedDateRanges: ["ad-699"])
        #expect(media.render().contains("\n#EXT-X-SKIP:SKIPPED-SEGMENTS=6,RECENTLY-REMOVED-DATERANGES=\"ad-699\"\n"))
    }

    @Test func aMasterKeepsItsMalformedStartAndSessionDataVerbatim() throws {
        let master = try MasterPlaylist.parse(Fixture.text("master-malformed-metadata.m3u8"))
        #expect(master.start == nil)
        #expect(master.sessionData == [SessionData(dataID: "com.example.rating", value: "TV-PG", language: "en")])
        #expect(master.unknownTags == [
            #"#EXT-X-START:TIME-OFFSET="-18""#,
            #"#EXT-X-CONTENT-STEERING:SERVER-URI=https://steering.example.com/v1,PATHWAY-ID="east""#,
            #"#EXT-X-SESSION-DATA:DATA-ID="com.example.show",VALUE=Night Harbour"#,
        ])
        #expect(master.warnings.map(\.line) == [4, 6])
        #expect(master.warnings.first == PlaylistWarning(
            line: 4, tag: "EXT-X-START", "EXT-X-START TIME-OFFSET '-18' is not a number; the tag is kept as written"))
        #expect(master.variants.map(\.uri) == ["video/540p.m3u8", "video/1080p.m3u8"])
        #expect(master.renditions.map(\.name) == ["English"])
    }

    @Test func anEmptyProgramDateTimeAndASecondStartAreWarnings() throws {
        let media = try MediaPlaylist.parse("""
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-START:TIME-OFFSET=8
            #EXT-X-START:TIME-OFFSET=2
            #EXT-X-PROGRAM-DATE-TIME:
            #EXTINF:4,
            a.ts
            #EXT-X-ENDLIST
            """)
        #expect(media.start == StartPoint(timeOffset: 8))
        #expect(media.segments[0].programDateTime == nil)
        #expect(media.segments[0].unknownTags == ["#EXT-X-START:TIME-OFFSET=2", "#EXT-X-PROGRAM-DATE-TIME:"])
        #expect(media.warnings == [
            PlaylistWarning(line: 4, tag: "EXT-X-START", "EXT-X-START appears twice (first on line 3); the tag is kept as written"),
            PlaylistWarning(
                line: 5, tag: "EXT-X-PROGRAM-DATE-TIME", "EXT-X-PROGRAM-DATE-TIME needs a date-time; the tag is kept as written"),
        ])
        let master = try MasterPlaylist.parse("#EXTM3U\n#EXT-X-START:TIME-OFFSET=8\n#EXT-X-START:TIME-OFFSET=2\n")
        #expect(master.start == StartPoint(timeOffset: 8) && master.unknownTags == ["#EXT-X-START:TIME-OFFSET=2"])
        #expect(master.warnings.map(\.line) == [3])
    }
}
