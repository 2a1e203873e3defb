import FixtureOrigin
import Foundation
import HLSPlaylist
import OfflineDownloads
import Testing

@Suite("DownloadPlan")
struct PackagePlanTests {
    @Test("fixture-shaped master: streams, resolved URLs, generated local names, interleaved order")
    func fixtureShaped() throws {
        let plan = try PackageFixtures.fixturePlan()
        #expect(plan.streams.map(\.name) == ["video", "audio_en", "audio_fr", "subs_de"])
        #expect(plan.stream(named: "video")?.source.playlistURL.absoluteString
            == "http://origin.test/videos/multilang/1200k/index.m3u8")
        #expect(plan.stream(named: "subs_de")?.source.playlistURL.absoluteString
            == "http://origin.test/videos/multilang/subs/de/index.m3u8")
        #expect(plan.streams.map(\.localPlaylistPath) == ["video.m3u8", "audio_en.m3u8", "audio_fr.m3u8", "subs_de.m3u8"])
        // Equal durations: video i, audio_en i, audio_fr i, subs_de i, then i + 1.
        let order = plan.items.map { "\($0.stream)#\($0.index)" }
        #expect(order == (0..<3).flatMap { i in ["video#\(i)", "audio_en#\(i)", "audio_fr#\(i)", "subs_de#\(i)"] })
        #expect(plan.items.map(\.ordinal) == Array(0..<12))
        let video1 = try #require(plan.segments(ofStream: "video").dropFirst().first)
        #expect(video1.remoteURL.absoluteString == "http://origin.test/videos/multilang/1200k/seg1.ts")
        #expect(video1.localPath == "video/seg00001.ts")
        #expect(video1.duration == 6 && video1.byteRange == nil && video1.key == nil && video1.rangeHeader == nil)
        #expect(plan.segments(ofStream: "subs_de").last?.localPath == "subs_de/seg00002.vtt")
        #expect(plan.skdKey == nil && !plan.needsKeyFile)
    }

    @Test("estimatedBytes is BANDWIDTH × duration / 8 per stream")
    func estimate() throws {
        let plan = try PackageFixtures.fixturePlan()
        let bytes = Dictionary(uniqueKeysWithValues: plan.streams.map { ($0.name, $0.estimatedBytes) })
        #expect(bytes["video"] == 2_100_000, "\(String(describing: bytes["video"]))")
        // Audio renditions take the audio-only variant's BANDWIDTH (64 kbit/s) of their group.
        #expect(bytes["audio_en"] == 112_000)
        #expect(bytes["subs_de"] == Int64(DownloadPlan.defaultSubtitleBandwidth * 14 / 8))
        #expect(plan.estimatedBytes == bytes.values.reduce(0, +))
    }

    @Test("segment records: one per item, ordinal = position, remote URI and local path")
    func records() throws {
        let plan = try PackageFixtures.fixturePlan()
        let records = plan.segmentRecords(token: "tok-9")
        #expect(records.count == plan.items.count)
        for (position, (record, item)) in zip(records, plan.items).enumerated() {
            #expect(record.ordinal == position && record.token == "tok-9" && record.state == .pending)
            #expect(record.stream == item.stream && record.index == item.index)
            #expect(record.uri == item.remoteURL.absoluteString && record.localPath == item.localPath)
        }
        #expect(Set(records.map(\.key)).count == records.count)
    }

    @Test("FixtureOrigin's catalog: multilang with default renditions")
    func catalogMultilang() throws {
        let catalog = Catalog(configuration: CatalogConfiguration())
        let video = try #require(catalog.video(withID: "multilang"))
        let plan = try Self.catalogPlan(catalog, video)
        #expect(plan.streams.map(\.name) == ["video", "audio_en", "subs_en"])
        let count = catalog.segmentCount(of: video)
        #expect(plan.items.count == 3 * count)
        // The merge by start time keeps segment i of every stream before segment i + 1 of any.
        #expect(plan.items.map(\.index) == (0..<count).flatMap { [$0, $0, $0] })
        #expect(plan.segments(ofStream: "video")[0].remoteURL.absoluteString
            == "http://127.0.0.1:9/videos/multilang/400k/seg0.ts")
    }

    @Test("FixtureOrigin's catalog: skd key kept for the license, asset and key id parsed")
    func catalogSKD() throws {
        let catalog = Catalog(configuration: CatalogConfiguration())
        let plan = try Self.catalogPlan(catalog, try #require(catalog.video(withID: "protected")))
        let skd = try #require(plan.skdKey)
        #expect(skd.assetID == "protected" && skd.keyID == catalog.keyID(for: "protected"))
        #expect(!plan.needsKeyFile)
        for item in plan.items {
            #expect(item.key?.source == .license(skd))
            #expect(item.key?.localURI == skd.uri && item.key?.key.keyFormat == Catalog.fairPlayKeyFormat)
            #expect(item.iv == Catalog.segmentIV(item.index))
        }
    }

    @Test("FixtureOrigin's catalog: an HTTP AES-128 key is fetched first, as key.bin")
    func catalogHTTPKey() throws {
        let catalog = Catalog(configuration: CatalogConfiguration())
        let video = try #require(catalog.video(withID: "http-key"))
        let plan = try Self.catalogPlan(catalog, video)
        #expect(plan.needsKeyFile && plan.skdKey == nil)
        let key = try #require(plan.items.first)
        #expect(key.kind == .keyFile && key.localPath == "key.bin" && key.stream == DownloadPlan.keyStream)
        #expect(key.remoteURL.absoluteString == "http://127.0.0.1:9/videos/http-key/key")
        #expect(plan.keyFiles == [key] && plan.items.count == catalog.segmentCount(of: video) + 1)
        #expect(plan.segments(ofStream: "video").allSatisfy { $0.key?.localURI == "key.bin" })
    }

    @Test("two streams with one language get distinct names")
    func duplicateLanguages() throws {
        let master = try MasterPlaylist.parse("""
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",LANGUAGE="en",NAME="Main",URI="en.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",LANGUAGE="EN",NAME="Commentary",URI="en-commentary.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="Unknown",URI="und.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=500000,RESOLUTION=320x180,AUDIO="a"
            v.m3u8

            """)
        let selection = MediaSelection(variant: master.variants[0], audio: master.renditions)
        let names = try DownloadPlan.sources(masterURL: PackageFixtures.masterURL, selection: selection).map(\.name)
        #expect(names == ["video", "audio_en", "audio_en_2", "audio_und"])
    }

    @Test("the plan survives a JSON round trip")
    func codable() throws {
        let plan = try PackageFixtures.fixturePlan()
        let data = try JSONEncoder().encode(plan)
        #expect(try JSONDecoder().decode(DownloadPlan.self, from: data) == plan)
    }

    /// A plan of `video` from the catalog's own playlists, default renditions.
    static func catalogPlan(_ catalog: Catalog, _ video: Video) throws -> DownloadPlan {
        let masterURL = URL(string: "http://127.0.0.1:9/videos/\(video.id)/master.m3u8")!
        let master = catalog.masterPlaylist(for: video)
        let selection = try VariantSelection.select(from: master)
        return try PackageFixtures.plan(master: master, selection: selection, masterURL: masterURL) { source in
            switch source.kind {
            case .subtitles:
                return catalog.subtitlePlaylist(for: video, language: source.rendition?.language ?? "")
            case .video, .audio:
                let components = source.playlistURL.pathComponents
                return catalog.mediaPlaylist(for: video, stream: components[components.count - 2])
            }
        }
    }
}
