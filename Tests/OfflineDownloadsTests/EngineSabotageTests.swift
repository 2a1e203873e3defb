import HLSPlaylist
@testable import OfflineDownloads
import Testing

/// The transfer's deliberate faults, kept for the harness's misbehaving agent
/// (`EngineSabotage`): what each changes, and that nothing changes with them off.
@Suite("EngineSabotage: init sections dropped, byte ranges resumed from the file's start")
struct EngineSabotageTests {
    typealias F = PackageFixtures

    static let fmp4 = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-TARGETDURATION:4
        #EXT-X-MAP:URI="init.mp4"
        #EXTINF:4,
        a0.m4s
        #EXTINF:4,
        a1.m4s
        #EXT-X-ENDLIST

        """

    @Test func aPlanWithoutInitSectionsFetchesNoneAndItsPlaylistsNameNone() throws {
        let plan = try F.singleVariantPlan(Self.fmp4)
        #expect(plan.items.map(\.kind) == [.initSection, .segment, .segment])
        #expect(OfflinePackage(plan: plan).render()[1].text.contains("#EXT-X-MAP:URI=\"video/init0.mp4\""))

        let dropped = plan.withoutInitSections()
        #expect(dropped.items.map(\.kind) == [.segment, .segment])
        #expect(dropped.items.map(\.ordinal) == [0, 1] && dropped.items.allSatisfy { $0.initSectionPath == nil })
        #expect(dropped.segmentRecords(token: "t").map(\.index) == [0, 1])
        let local = OfflinePackage(plan: dropped).render()[1].text
        #expect(!local.contains("EXT-X-MAP"), "\(local)")
        #expect(try MediaPlaylist.parse(local).segments.map(\.uri) == ["video/seg00000.m4s", "video/seg00001.m4s"])
    }

    @Test func aResumedByteRangeIsAskedFromTheFilesStartOnlyUnderTheSabotage() {
        let range = ByteRange(length: 1000, offset: 5000)
        let honest = EngineSabotage()
        #expect(honest.range(range, resumingAt: 300) == range)
        let broken = EngineSabotage(resumesByteRangesFromFileStart: true)
        // A resume of 300 bytes: asked from byte 300 of the file, not 5300.
        #expect(broken.range(range, resumingAt: 300) == ByteRange(length: 1000, offset: 0))
        // Nothing held, or a whole resource: unchanged.
        #expect(broken.range(range, resumingAt: 0) == range && broken.range(nil, resumingAt: 300) == nil)
    }
}
