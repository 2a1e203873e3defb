import Foundation
import HLSPlaylist
import OfflineDownloads
import Testing

/// Segments that list several keys (one per KEYFORMAT): the plan chooses the key the
/// engine supports, refuses with a typed error when there is none, and the local
/// playlists keep the other keys that need no network, and the tags a player relies on.
@Suite("DownloadPlan: multi-DRM keys and the tags local playlists keep")
struct MultiKeyPlanTests {
    typealias F = PackageFixtures
    static let fairPlay = #"METHOD=SAMPLE-AES,URI="skd://movie-1/0123abcd",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1""#
    static let widevine = #"METHOD=SAMPLE-AES,URI="data:text/plain;base64,AAAANHBzc2g=",KEYFORMAT="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed",KEYFORMATVERSIONS="1""#
    static let playReady = #"METHOD=SAMPLE-AES,URI="data:text/plain;charset=UTF-16;base64,BgIAAA==",KEYFORMAT="com.microsoft.playready",KEYFORMATVERSIONS="1""#
    static let remoteWidevine = #"METHOD=SAMPLE-AES,URI="https://license.test/wv",KEYFORMAT="urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed""#

    static func keyed(_ attributes: [String], durations: [Double] = [4, 4]) -> String {
        F.vod(durations) { index in
            index == 0 ? attributes.map { "#EXT-X-KEY:\($0)" }.joined(separator: "\n") : ""
        }
    }

    @Test("the skd:// key is chosen whether it is listed first or last", arguments: [
        [fairPlay, widevine, playReady], [widevine, playReady, fairPlay],
    ])
    func skdChosenInAnyOrder(keys: [String]) throws {
        let plan = try F.singleVariantPlan(Self.keyed(keys))
        #expect(plan.skdKey?.uri == "skd://movie-1/0123abcd")
        #expect(plan.segments(ofStream: "video").allSatisfy { $0.key?.key.uri == "skd://movie-1/0123abcd" })
        #expect(!plan.needsKeyFile)
        // The local playlist lists the same keys in the same order (all need no network).
        let local = try MediaPlaylist.parse(OfflinePackage(plan: plan).render()[1].text)
        let remote = try MediaPlaylist.parse(Self.keyed(keys))
        #expect(local.segments.map(\.keys) == remote.segments.map(\.keys))
    }

    @Test("the identity key is chosen among keys of other systems; a remote foreign key is not kept locally")
    func identityChosen() throws {
        let identity = #"METHOD=AES-128,URI="https://keys.test/k1""#
        let plan = try F.singleVariantPlan(Self.keyed([Self.remoteWidevine, identity, Self.playReady]))
        #expect(plan.skdKey == nil && plan.keyFiles.map(\.remoteURL.absoluteString) == ["https://keys.test/k1"])
        let local = try MediaPlaylist.parse(OfflinePackage(plan: plan).render()[1].text)
        #expect(local.segments[0].keys.map(\.uri) == ["key.bin", "data:text/plain;charset=UTF-16;base64,BgIAAA=="])
    }

    @Test("a segment with only keys of unsupported systems fails with a typed error naming them")
    func noSupportedKey() {
        let error = F.planError { try F.singleVariantPlan(Self.keyed([Self.widevine, Self.playReady])) }
        #expect(error == .noSupportedKey(
            stream: "video", index: 0,
            keyFormats: ["urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed", "com.microsoft.playready"]))
        #expect(error?.description.contains("skd://") == true)
        #expect(F.planError { try F.singleVariantPlan(Self.keyed([Self.remoteWidevine])) } == .noSupportedKey(
            stream: "video", index: 0, keyFormats: ["urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"]))
    }

    @Test("the local master keeps the variant's closed captions, START and SESSION-DATA values")
    func localMasterKeepsCaptionsStartAndSessionData() throws {
        let master = try MasterPlaylist.parse("""
            #EXTM3U
            #EXT-X-START:TIME-OFFSET=10.0
            #EXT-X-SESSION-DATA:DATA-ID="com.example.title",VALUE="Sample"
            #EXT-X-SESSION-DATA:DATA-ID="com.example.lyrics",URI="https://origin.test/lyrics.json"
            #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",LANGUAGE="en",NAME="English",INSTREAM-ID="CC1"
            #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="other",NAME="Other",INSTREAM-ID="CC2"
            #EXT-X-STREAM-INF:BANDWIDTH=800000,HDCP-LEVEL=TYPE-0,CLOSED-CAPTIONS="cc"
            video/index.m3u8

            """)
        let plan = try F.plan(master: master, selection: MediaSelection(variant: master.variants[0])) { _ in
            try MediaPlaylist.parse(F.vod([4]))
        }
        let local = try MasterPlaylist.parse(OfflinePackage(plan: plan).render()[0].text)
        #expect(local.renditions.map(\.instreamID) == ["CC1"])
        #expect(local.variants.map(\.closedCaptions) == [.group("cc")] && local.variants[0].hdcpLevel == "TYPE-0")
        #expect(local.start == StartPoint(timeOffset: 10))
        #expect(local.sessionData.map(\.dataID) == ["com.example.title"])
    }

    @Test("local playlists keep PROGRAM-DATE-TIME, DATERANGE, DISCONTINUITY-SEQUENCE and START")
    func localPlaylistsKeepTimingTags() throws {
        let text = F.vod(
            [4, 4, 4], header: "#EXT-X-DISCONTINUITY-SEQUENCE:7\n#EXT-X-START:TIME-OFFSET=2.5,PRECISE=YES"
        ) { index in
            switch index {
            case 0: "#EXT-X-PROGRAM-DATE-TIME:2024-03-09T18:41:06.000Z"
            case 2:
                "#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:2024-03-09T19:00:00.000Z\n"
                    + #"#EXT-X-DATERANGE:ID="ad-1",START-DATE="2024-03-09T19:00:00.000Z",DURATION=4.0,X-AD="a""#
            default: ""
            }
        }
        let remote = try MediaPlaylist.parse(text)
        let local = try MediaPlaylist.parse(OfflinePackage(plan: try F.singleVariantPlan(text)).render()[1].text)
        #expect(local.discontinuitySequence == 7)
        #expect(local.start == StartPoint(timeOffset: 2.5, precise: true))
        #expect(local.segments.map(\.programDateTime) == remote.segments.map(\.programDateTime))
        #expect(local.segments.map(\.discontinuity) == [false, false, true])
        #expect(local.segments[2].dateRanges == remote.segments[2].dateRanges && !remote.segments[2].dateRanges.isEmpty)
    }
}
