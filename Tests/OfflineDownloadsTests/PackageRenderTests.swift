import Foundation
import HLSPlaylist
import OfflineDownloads
import Testing

@Suite("OfflinePackage: rendering")
struct PackageRenderTests {
    typealias F = PackageFixtures

    /// Plans of every shape the tests know.
    static func plans() throws -> [(String, DownloadPlan)] {
        [
            ("fixture", try F.fixturePlan()),
            ("fixture, no subtitles", try F.fixturePlan(audio: ["es"], subtitles: [])),
            ("byte ranges + map", try F.singleVariantPlan("""
                #EXTM3U
                #EXT-X-VERSION:7
                #EXT-X-TARGETDURATION:4
                #EXT-X-MAP:URI="main.mp4",BYTERANGE="700@0"
                #EXTINF:4,
                #EXT-X-BYTERANGE:1000@700
                main.mp4
                #EXTINF:4,
                #EXT-X-BYTERANGE:1000
                main.mp4
                #EXT-X-ENDLIST

                """)),
            ("skd", try F.singleVariantPlan(F.vod([4, 4]) { _ in
                #"#EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://a/b",KEYFORMAT="com.apple.streamingkeydelivery""#
            })),
            ("http key", try F.singleVariantPlan(F.vod([4, 4], header: "#EXT-X-MEDIA-SEQUENCE:3") { index in
                index == 0 ? #"#EXT-X-KEY:METHOD=AES-128,URI="https://keys.test/k""# : ""
            })),
        ]
    }

    @Test("every local playlist parses back; every URI is a local path of the plan")
    func roundTrip() throws {
        for (name, plan) in try Self.plans() {
            let files = OfflinePackage(plan: plan).render()
            let planPaths = Set(plan.items.map(\.localPath) + plan.streams.map(\.localPlaylistPath))
            #expect(files.map(\.relativePath) == ["master.m3u8"] + plan.streams.map(\.localPlaylistPath), "\(name)")
            for file in files {
                for uri in try Self.uris(in: try Playlist.parse(file.text)) {
                    if uri.hasPrefix("skd://") { continue }
                    #expect(planPaths.contains(uri) && F.staysInside(uri), "\(name): \(file.relativePath) names \(uri)")
                }
                #expect(!file.text.contains("EXT-X-BYTERANGE") && !file.text.contains("BYTERANGE="), "\(name)")
            }
            for stream in plan.streams {
                let text = try #require(files.first { $0.relativePath == stream.localPlaylistPath }?.text)
                let local = try MediaPlaylist.parse(text)
                #expect(local.endList && local.playlistType == .vod && local.mediaSequence == stream.playlist.mediaSequence)
                #expect(local.segments.map(\.duration) == stream.playlist.segments.map(\.duration), "\(name)")
            }
        }
    }

    @Test("the local master names only the chosen variant and renditions")
    func master() throws {
        let plan = try F.fixturePlan()
        let master = try MasterPlaylist.parse(OfflinePackage(plan: plan).render()[0].text)
        #expect(master.variants.count == 1)
        #expect(master.variants[0].uri == "video.m3u8" && master.variants[0].bandwidth == 1_200_000)
        #expect(master.variants[0].audio == "aud" && master.variants[0].subtitles == "subs")
        #expect(master.renditions.map(\.language) == ["en", "fr", "de"])
        #expect(master.renditions.map(\.uri) == ["audio_en.m3u8", "audio_fr.m3u8", "subs_de.m3u8"])
        // Without subtitles the variant names no SUBTITLES group; es becomes the default.
        let noSubs = try MasterPlaylist.parse(OfflinePackage(plan: try F.fixturePlan(audio: ["es"], subtitles: [])).render()[0].text)
        #expect(noSubs.variants[0].subtitles == nil && noSubs.renditions.map(\.language) == ["es"])
        #expect(noSubs.renditions[0].isDefault)
    }

    @Test("keys: skd kept, HTTP key pointed at key.bin with its IV and media sequence; maps local")
    func keysAndMaps() throws {
        let plans = Dictionary(uniqueKeysWithValues: try Self.plans())
        func video(_ name: String) throws -> MediaPlaylist {
            let plan = try #require(plans[name])
            return try MediaPlaylist.parse(OfflinePackage(plan: plan).render()[1].text)
        }
        #expect(try video("skd").segments.allSatisfy { $0.keys.map(\.uri) == ["skd://a/b"] && $0.keys.first?.method == .sampleAES })
        let http = try video("http key")
        #expect(http.mediaSequence == 3 && http.segments.allSatisfy { $0.keys.map(\.uri) == ["key.bin"] && $0.keys.first?.iv == nil })
        let ranges = try video("byte ranges + map")
        #expect(ranges.segments.map(\.uri) == ["video/seg00000.mp4", "video/seg00001.mp4"])
        #expect(ranges.segments.allSatisfy { $0.map == MediaInitializationSection(uri: "video/init0.mp4") && $0.byteRange == nil })
    }

    @Test("a partial package lists each stream's stored prefix; isComplete needs every item")
    func partial() throws {
        let plan = try F.fixturePlan()
        var records = plan.segmentRecords(token: "t")
        let stored: Set<String> = ["video/seg00000.ts", "video/seg00001.ts", "audio_en/seg00000.ts", "audio_fr/seg00001.ts"]
        for i in records.indices where stored.contains(records[i].localPath) { records[i].state = .complete }
        let package = OfflinePackage(plan: plan, segments: records)
        let counts = package.render().dropFirst().map { try? MediaPlaylist.parse($0.text).segments.count }
        #expect(counts == [2, 1, 0, 0])
        #expect(package.sidebandSubtitles.first?.filePaths == [])
        #expect(!package.isComplete(segments: records))
        for i in records.indices { records[i].state = .complete }
        #expect(package.isComplete(segments: records))
        #expect(!package.isComplete(segments: Array(records.dropLast())))
        records[0].state = .partial
        #expect(!package.isComplete(segments: records))
    }

    @Test("a segment whose key file is not stored is not listed")
    func partialKey() throws {
        let plan = try #require(Dictionary(uniqueKeysWithValues: try Self.plans())["http key"])
        var records = plan.segmentRecords(token: "t")
        for i in records.indices where records[i].localPath != "key.bin" { records[i].state = .complete }
        let text = OfflinePackage(plan: plan, segments: records).render()[1].text
        #expect(try MediaPlaylist.parse(text).segments.isEmpty)
    }

    @Test("subtitles are listed as sideband tracks")
    func sideband() throws {
        let tracks = OfflinePackage(plan: try F.fixturePlan(subtitles: ["en", "de"])).sidebandSubtitles
        #expect(tracks.map(\.language) == ["en", "de"] && tracks.map(\.name) == ["English", "Deutsch"])
        #expect(tracks.map(\.playlistPath) == ["subs_en.m3u8", "subs_de.m3u8"] && tracks.map(\.isDefault) == [true, false])
        #expect(tracks[1].filePaths == ["subs_de/seg00000.vtt", "subs_de/seg00001.vtt", "subs_de/seg00002.vtt"])
    }

    /// Every URI a playlist names: variants, renditions, segments, maps, keys.
    static func uris(in playlist: Playlist) throws -> [String] {
        switch playlist {
        case .master(let master):
            return master.variants.map(\.uri) + master.renditions.compactMap(\.uri) + master.sessionKeys.map(\.uri)
        case .media(let media):
            return media.segments.flatMap { [$0.uri] + [$0.map?.uri].compactMap { $0 } + $0.keys.map(\.uri) }
        }
    }
}
