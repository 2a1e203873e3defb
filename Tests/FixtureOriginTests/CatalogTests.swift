import FixtureOrigin
import HLSPlaylist
import Testing

/// A small catalog shared by the content tests: segments of a few kilobytes.
let contentConfiguration = CatalogConfiguration(seed: 7, sizeScale: 0.01, largeVideoDuration: 60)
let contentCatalog = Catalog(configuration: contentConfiguration)
let contentStore = ContentStore(catalog: contentCatalog)

@Suite struct CatalogTests {
    @Test func standardCatalogHasTheVideosTheScenariosNeed() throws {
        let ids = contentCatalog.videos.map(\.id)
        #expect(ids == ["clear", "protected", "http-key", "multi-drm", "multilang", "online-only", "large"])
        #expect(Set(ids).count == ids.count)
        #expect(try #require(contentCatalog.video(withID: "protected")).protection == .skd)
        #expect(try #require(contentCatalog.video(withID: "http-key")).protection == .httpKey)
        #expect(try #require(contentCatalog.video(withID: "clear")).protection == .none)
        #expect(try #require(contentCatalog.video(withID: "online-only")).offlineEnabled == false)
        #expect(try #require(contentCatalog.video(withID: "large")).duration == 60)
        let multilang = try #require(contentCatalog.video(withID: "multilang"))
        #expect(multilang.audioTracks.map(\.language) == ["en", "fr", "es"])
        #expect(multilang.textTracks.map(\.language) == ["en", "de"])
    }

    @Test func everyVideoHasFourVideoVariantsAndAnAudioOnlyOne() {
        for video in contentCatalog.videos {
            #expect(video.variants.filter { !$0.isAudioOnly }.count == 4)
            #expect(video.variants.filter(\.isAudioOnly).count == 1)
            #expect(video.variants.allSatisfy { $0.averageBandwidth <= $0.bandwidth })
        }
    }

    @Test func segmentCountIsTheCeilingOfDurationOverSegmentDuration() throws {
        let clear = try #require(contentCatalog.video(withID: "clear"))  // 125 s
        #expect(contentCatalog.segmentCount(of: clear) == 21)
        #expect(contentCatalog.duration(ofSegment: 0, of: clear) == 6)
        #expect(contentCatalog.duration(ofSegment: 20, of: clear) == 5)
        let large = try #require(contentCatalog.video(withID: "large"))  // 60 s: exactly 10
        #expect(contentCatalog.segmentCount(of: large) == 10)
        #expect(contentCatalog.duration(ofSegment: 9, of: large) == 6)
    }

    @Test func contentKeysExistOnlyForProtectedVideosAndFollowTheSeed() throws {
        let key = try #require(contentCatalog.contentKey(for: "protected"))
        #expect(key.count == 16)
        #expect(contentCatalog.contentKey(for: "http-key")?.count == 16)
        #expect(contentCatalog.contentKey(for: "http-key") != key)
        #expect(contentCatalog.contentKey(for: "clear") == nil)
        #expect(contentCatalog.contentKey(for: "missing") == nil)
        #expect(Catalog(configuration: contentConfiguration).contentKey(for: "protected") == key)
        let other = Catalog(configuration: CatalogConfiguration(seed: 8, sizeScale: 0.01))
        #expect(other.contentKey(for: "protected") != key)
        #expect(contentStore.contentKey(for: "protected") == key)
    }

    @Test func keyURIsUseSkdForLicensedVideosAndARelativeHTTPPathOtherwise() throws {
        let keyID = try #require(contentCatalog.keyID(for: "protected"))
        #expect(keyID.count == 32)
        #expect(contentCatalog.keyURI(for: "protected") == "skd://protected/\(keyID)")
        #expect(contentCatalog.keyURI(for: "http-key") == "../key")
        #expect(contentCatalog.keyURI(for: "clear") == nil)
    }
}
