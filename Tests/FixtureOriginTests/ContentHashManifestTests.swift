import Crypto
import FixtureOrigin
import Foundation
import TestSupport
import Testing
import _CryptoExtras

@Suite(.cpuHeavy) struct ContentHashManifestTests {
    private func hex(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    @Test func manifestMatchesEveryServedResource() throws {
        let manifest = try contentStore.hashManifest(videoIDs: ["clear", "protected", "multilang"])
        #expect(manifest.seed == 7)
        var expectedCount = 0
        for id in ["clear", "protected", "multilang"] {
            let video = try #require(contentCatalog.video(withID: id))
            for path in contentStore.paths(of: video) {
                expectedCount += 1
                let served = try #require(contentStore.resource(at: path))
                let entry = try #require(manifest.entries[path.path], "\(path.path)")
                #expect(entry.sha256 == hex(served.bytes))
                #expect(entry.byteCount == served.bytes.count)
            }
        }
        #expect(manifest.entries.count == expectedCount)
        #expect(manifest.entries["/videos/http-key/master.m3u8"] == nil)
    }

    @Test func clearHashesAreOfTheDecryptedBytes() throws {
        let manifest = try contentStore.hashManifest(videoIDs: ["protected", "clear"])
        let plain = try #require(manifest.entries["/videos/clear/400k/seg0.ts"])
        #expect(plain.clearSHA256 == plain.sha256 && plain.clearByteCount == plain.byteCount)
        let entry = try #require(manifest.entries["/videos/protected/400k/seg2.ts"])
        #expect(entry.clearSHA256 != entry.sha256)
        let served = try #require(contentStore.resource(at: "/videos/protected/400k/seg2.ts")).bytes
        let key = try #require(contentCatalog.contentKey(for: "protected"))
        let clear = try AES._CBC.decrypt(served, using: SymmetricKey(data: key), iv: AES._CBC.IV(ivBytes: Catalog.segmentIV(2)))
        #expect(entry.clearSHA256 == hex(Array(clear)))
        #expect(entry.clearByteCount == clear.count)
    }

    @Test func manifestRoundTripsAsSnakeCaseJSON() throws {
        let manifest = try contentStore.hashManifest(videoIDs: ["online-only", "no-such-video"])
        #expect(!manifest.entries.isEmpty)
        let data = try JSONEncoder().encode(manifest)
        #expect(try JSONDecoder().decode(HashManifest.self, from: data) == manifest)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entries = try #require(json["entries"] as? [String: [String: Any]])
        let entry = try #require(entries["/videos/online-only/400k/seg0.ts"])
        #expect(Set(entry.keys) == ["sha256", "byte_count", "clear_sha256", "clear_byte_count"])
    }
}
