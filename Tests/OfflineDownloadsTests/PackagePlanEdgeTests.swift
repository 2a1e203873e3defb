import Foundation
import HLSPlaylist
import OfflineDownloads
import Testing

@Suite("DownloadPlan: byte ranges, init sections, keys, errors, hostile names")
struct PackagePlanEdgeTests {
    typealias F = PackageFixtures

    @Test("each EXT-X-BYTERANGE is its own item, fetched with a Range, saved to its own file")
    func byteRanges() throws {
        let plan = try F.singleVariantPlan("""
            #EXTM3U
            #EXT-X-VERSION:4
            #EXT-X-TARGETDURATION:4
            #EXTINF:4,
            #EXT-X-BYTERANGE:1000@0
            main.ts
            #EXTINF:4,
            #EXT-X-BYTERANGE:1500
            main.ts
            #EXTINF:2,
            #EXT-X-BYTERANGE:500@0
            tail.ts
            #EXT-X-ENDLIST

            """)
        let segments = plan.segments(ofStream: "video")
        #expect(segments.map(\.localPath) == ["video/seg00000.ts", "video/seg00001.ts", "video/seg00002.ts"])
        #expect(segments.map(\.rangeHeader) == ["bytes=0-999", "bytes=1000-2499", "bytes=0-499"])
        #expect(segments[0].remoteURL == segments[1].remoteURL && segments[0].remoteURL != segments[2].remoteURL)
        #expect(segments[1].remoteURL.absoluteString == "http://origin.test/videos/multilang/video/main.ts")
        // Resuming a range stays inside it.
        #expect(segments[1].rangeHeader(resumingAt: 100) == "bytes=1100-2499")
        #expect(segments[1].rangeHeader(resumingAt: 1500) == nil)
        let whole = try F.singleVariantPlan(F.vod([4])).items[0]
        #expect(whole.rangeHeader(resumingAt: 0) == nil && whole.rangeHeader(resumingAt: 42) == "bytes=42-")
    }

    @Test("EXT-X-MAP: one init item per distinct map, just before its first segment")
    func initSections() throws {
        let plan = try F.singleVariantPlan("""
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:4
            #EXT-X-MAP:URI="init-a.mp4"
            #EXTINF:4,
            a0.m4s
            #EXTINF:4,
            a1.m4s
            #EXT-X-DISCONTINUITY
            #EXT-X-MAP:URI="single.mp4",BYTERANGE="720@0"
            #EXTINF:4,
            #EXT-X-BYTERANGE:9000@720
            single.mp4
            #EXT-X-ENDLIST

            """)
        #expect(plan.items.map(\.localPath) == [
            "video/init0.mp4", "video/seg00000.m4s", "video/seg00001.m4s", "video/init1.mp4", "video/seg00002.mp4",
        ])
        #expect(plan.items.map(\.kind) == [.initSection, .segment, .segment, .initSection, .segment])
        #expect(plan.items.map(\.index) == [-1, 0, 1, -2, 2])
        #expect(plan.items[3].rangeHeader == "bytes=0-719" && plan.items[4].rangeHeader == "bytes=720-9719")
        #expect(plan.segments(ofStream: "video").map(\.initSectionPath) == ["video/init0.mp4", "video/init0.mp4", "video/init1.mp4"])
    }

    @Test("HTTP keys: implicit IVs from the media sequence, one key file per distinct key URL")
    func httpKeys() throws {
        let plan = try F.singleVariantPlan(F.vod([4, 4, 4], header: "#EXT-X-MEDIA-SEQUENCE:7") { index in
            switch index {
            case 0: #"#EXT-X-KEY:METHOD=AES-128,URI="../keys/k1""#
            case 2: #"#EXT-X-KEY:METHOD=SAMPLE-AES,URI="https://keys.test/k2",IV=0x000102030405060708090a0b0c0d0e0f"#
            default: ""
            }
        })
        #expect(plan.items.map(\.localPath) == [
            "key.bin", "video/seg00000.ts", "video/seg00001.ts", "key1.bin", "video/seg00002.ts",
        ])
        #expect(plan.keyFiles.map(\.remoteURL.absoluteString) == [
            "http://origin.test/videos/multilang/keys/k1", "https://keys.test/k2",
        ])
        let segments = plan.segments(ofStream: "video")
        #expect(segments[0].iv == [UInt8](repeating: 0, count: 15) + [7])
        #expect(segments[1].iv == [UInt8](repeating: 0, count: 15) + [8])
        #expect(segments[2].iv == Array(0...15))
        #expect(segments.map { $0.key?.localURI } == ["key.bin", "key.bin", "key1.bin"])
        #expect(segments[2].key?.key.method == .sampleAES)
    }

    @Test("skd keys: SAMPLE-AES kept as it is; a malformed or second skd key is refused")
    func skdKeys() throws {
        func playlist(_ uris: [String], method: String = "SAMPLE-AES") -> String {
            F.vod(Array(repeating: 4, count: uris.count)) { index in
                #"#EXT-X-KEY:METHOD=\#(method),URI="\#(uris[index])",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1""#
            }
        }
        let plan = try F.singleVariantPlan(playlist(["skd://movie-1/0123abcd", "skd://movie-1/0123abcd"]))
        #expect(plan.skdKey?.assetID == "movie-1" && plan.skdKey?.keyID == "0123abcd" && !plan.needsKeyFile)
        #expect(plan.items.allSatisfy { $0.key?.localKey.uri == "skd://movie-1/0123abcd" && $0.key?.key.method == .sampleAES })
        #expect(F.planError { try F.singleVariantPlan(playlist(["skd://only-one-part"])) }
            == .malformedSKDKey(uri: "skd://only-one-part"))
        #expect(F.planError { try F.singleVariantPlan(playlist(["skd://a/1", "skd://a/2"])) }
            == .multipleLicenseKeys(uris: ["skd://a/1", "skd://a/2"]))
    }

    @Test("an identity key that cannot work offline is refused with a reason", arguments: [
        #"METHOD=AES-128,URI="ftp://keys.test/k""#,
        #"METHOD=AES-128,URI="ftp://keys.test/k",KEYFORMAT="identity""#,
    ])
    func unsupportedKeys(attributes: String) throws {
        let error = F.planError { try F.singleVariantPlan(F.vod([4]) { _ in "#EXT-X-KEY:\(attributes)" }) }
        guard case .unsupportedKey(let stream, _, let reason)? = error else {
            Issue.record("expected unsupportedKey, got \(String(describing: error))")
            return
        }
        #expect(stream == "video" && !reason.isEmpty)
    }

    @Test("a live playlist (no ENDLIST) cannot be downloaded; an ended EVENT playlist can")
    func live() throws {
        #expect(F.planError { try F.singleVariantPlan(F.vod([4, 4], endList: false)) }
            == .livePlaylist(stream: "video", url: F.singleVariantURL))
        let ended = try F.singleVariantPlan(F.vod([4, 4], header: "#EXT-X-PLAYLIST-TYPE:EVENT"))
        #expect(ended.items.count == 2)
    }

    @Test("an empty playlist, a missing playlist and a non-HTTP URI are errors that name the stream")
    func otherErrors() throws {
        #expect(F.planError { try F.singleVariantPlan("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-ENDLIST\n") }
            == .emptyPlaylist(stream: "video", url: F.singleVariantURL))
        #expect(F.planError { try F.singleVariantPlan("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n") }
            == .unsupportedURL(stream: "video", uri: "file:///etc/passwd"))
        let master = try MasterPlaylist.parse(F.fixtureMaster)
        let selection = try VariantSelection.select(from: master, audioLanguages: ["fr"])
        let error = F.planError {
            try F.plan(master: master, selection: selection) { source in
                source.kind == .audio ? nil : try MediaPlaylist.parse(F.vod([4]))
            }
        }
        #expect(error == .missingMediaPlaylist(
            stream: "audio_fr", url: URL(string: "http://origin.test/videos/multilang/audio_fr/index.m3u8")!))
        #expect(error?.description.contains("audio_fr/index.m3u8") == true)
    }

    @Test("hostile URIs and languages never make a local path that leaves the package")
    func pathEscape() throws {
        let hostile = [
            "../../etc/passwd", "/../../../root/.ssh/id_rsa", "%2e%2e/%2e%2e/etc/shadow", "..%2F..%2Fx.ts",
            "a/../../../../b.ts", "x.ts?name=../../y", "seg.TS", "evil.ts%00.m3u8",
        ]
        var lines = ["#EXTM3U", "#EXT-X-TARGETDURATION:4", #"#EXT-X-MAP:URI="../../../init.mp4""#]
        for uri in hostile { lines += ["#EXTINF:4,", uri] }
        let master = try MasterPlaylist.parse("""
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",LANGUAGE="../../..",NAME="Up",URI="../../a.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="s",LANGUAGE="/etc",NAME="Root",URI="/s.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=320x180,AUDIO="a",SUBTITLES="s"
            ../../../../v.m3u8

            """)
        let selection = MediaSelection(
            variant: master.variants[0], audio: [master.renditions[0]], subtitles: [master.renditions[1]])
        let media = try MediaPlaylist.parse(lines.joined(separator: "\n") + "\n#EXT-X-ENDLIST\n")
        let plan = try F.plan(master: master, selection: selection) { _ in media }
        #expect(plan.streams.map(\.name) == ["video", "audio_--------", "subs_-etc"])
        let paths = plan.items.map(\.localPath) + plan.streams.map(\.localPlaylistPath)
        for path in paths {
            #expect(F.staysInside(path), "\(path) leaves the package")
            let resolved = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: "/pkg/")).standardized.path
            #expect(resolved.hasPrefix("/pkg/"), "\(path) resolves to \(resolved)")
        }
        #expect(Set(paths).count == paths.count)
        // Only a plain extension is taken from the URL; anything else becomes .ts.
        #expect(plan.segments(ofStream: "video").map { ($0.localPath as NSString).pathExtension }
            == ["ts", "ts", "ts", "ts", "ts", "ts", "ts", "m3u8"])
        // The store's own guard accepts every path.
        let directory = try F.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = PackageFiles(directory: directory.path)
        for record in plan.segmentRecords(token: "t") { try files.prepare(record) }
    }
}
