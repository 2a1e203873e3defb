import Crypto
import FixtureOrigin
import Testing
import _CryptoExtras

@Suite struct SyntheticSegmentTests {
    @Test func sameSeedGivesTheSameBytesAndAnotherSeedOthers() throws {
        let path = "/videos/clear/1200k/seg3.ts"
        let a = try #require(contentStore.resource(at: path))
        let b = try #require(ContentStore(configuration: contentConfiguration).resource(at: path))
        #expect(a.bytes == b.bytes)
        var otherConfiguration = contentConfiguration
        otherConfiguration.seed = 8
        let c = try #require(ContentStore(configuration: otherConfiguration).resource(at: path))
        #expect(c.bytes.count == a.bytes.count)
        #expect(c.bytes != a.bytes)
        // Different streams and indices of the same video differ too.
        #expect(contentStore.resource(at: "/videos/clear/1200k/seg4.ts")?.bytes != a.bytes)
        #expect(contentStore.resource(at: "/videos/online-only/1200k/seg3.ts")?.bytes != a.bytes)
    }

    @Test func sizeIsBandwidthTimesDurationTimesScale() throws {
        let clear = try #require(contentCatalog.video(withID: "clear"))
        for variant in clear.variants {
            let size = try #require(contentCatalog.clearSegmentSize(of: clear, stream: variant.name, index: 0))
            #expect(size == Int((Double(variant.bandwidth) / 8 * 6 * 0.01).rounded()))
            #expect(contentCatalog.clearSegment(of: clear, stream: variant.name, index: 0)?.count == size)
        }
        let sizes = clear.variants.filter { !$0.isAudioOnly }.compactMap {
            contentStore.resource(at: "/videos/clear/\($0.name)/seg0.ts")?.bytes.count
        }
        #expect(sizes == sizes.sorted() && Set(sizes).count == 4)
        // The last segment (5 s of 6) is proportionally shorter.
        #expect(contentCatalog.clearSegmentSize(of: clear, stream: "400k", index: 20) == 2500)
        // Doubling the scale doubles the size.
        var bigger = contentConfiguration
        bigger.sizeScale = 0.02
        #expect(Catalog(configuration: bigger).clearSegmentSize(of: clear, stream: "400k", index: 0) == 6000)
    }

    @Test func tinyScalesStillGiveOneTransportPacket() throws {
        let catalog = Catalog(configuration: CatalogConfiguration(sizeScale: 0))
        let clear = try #require(catalog.video(withID: "clear"))
        #expect(catalog.clearSegment(of: clear, stream: "audio", index: 0)?.count == 188)
    }

    @Test func clearSegmentsHaveATransportStreamSyncByteEvery188Bytes() throws {
        let bytes = try #require(contentStore.resource(at: "/videos/clear/3000k/seg0.ts")).bytes
        #expect(stride(from: 0, to: bytes.count, by: 188).allSatisfy { bytes[$0] == 0x47 })
        // The rest looks random: all byte values appear in 22 500 bytes.
        #expect(Set(bytes).count == 256)
    }

    @Test(arguments: ["protected", "http-key"])
    func protectedSegmentsDecryptToTheClearBytes(videoID: String) throws {
        let video = try #require(contentCatalog.video(withID: videoID))
        let key = try #require(contentCatalog.contentKey(for: videoID))
        for index in [0, contentCatalog.segmentCount(of: video) - 1] {
            let served = try #require(contentStore.resource(at: "/videos/\(videoID)/400k/seg\(index).ts")).bytes
            let clear = try #require(contentCatalog.clearSegment(of: video, stream: "400k", index: index))
            #expect(served != clear)
            #expect(served.count == (clear.count / 16 + 1) * 16)  // PKCS7 always pads
            let decrypted = try AES._CBC.decrypt(
                served, using: SymmetricKey(data: key), iv: AES._CBC.IV(ivBytes: Catalog.segmentIV(index)))
            #expect(Array(decrypted) == clear)
        }
    }

    @Test func theIVIsTheMediaSequenceNumberBigEndian() {
        #expect(Catalog.segmentIV(0) == [UInt8](repeating: 0, count: 16))
        #expect(Catalog.segmentIV(258) == [UInt8](repeating: 0, count: 14) + [1, 2])
    }

    @Test func clearVideosServeTheClearBytes() throws {
        let clear = try #require(contentCatalog.video(withID: "clear"))
        let served = try #require(contentStore.resource(at: "/videos/clear/audio/seg2.ts")).bytes
        #expect(served == contentCatalog.clearSegment(of: clear, stream: "audio", index: 2))
    }
}
