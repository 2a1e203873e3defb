import BenchCore
import Crypto
import FixtureOrigin
import Foundation
import Testing

/// The license server answering a recorded stream's `skd://` keys, as it answers the
/// fixture's `skd` videos, and the catalog API saying where that license is.
@Suite(.timeLimit(.minutes(2))) struct OriginServerRecordedLicenseTests {
    static let secret = Array("recorded-license-secret".utf8)

    /// A catalog directory of a SAMPLE-AES stream `id` whose playlists named `licenseKeys`,
    /// and of a clear stream `clear-show`.
    static func catalog(_ id: String, licenseKeys: [String]) throws -> String {
        let directory = NSTemporaryDirectory() + "deadzone-recorded-license-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/files", withIntermediateDirectories: true)
        var resources: [RecordedResource] = []
        for (index, url) in ["https://cdn.example/fp/master.m3u8", "https://cdn.example/clear/master.m3u8"].enumerated() {
            let bytes = Data("#EXTM3U\n".utf8)
            try bytes.write(to: URL(fileURLWithPath: "\(directory)/files/\(index)"))
            resources.append(RecordedResource(
                url: url, kind: .master, file: "files/\(index)", contentType: "application/vnd.apple.mpegurl",
                size: Int64(bytes.count), sha256: SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()))
        }
        let videos = [
            RecordedVideo(id: id, name: id, master: resources[0].url, duration: 2, protection: "sample-aes",
                          licenseKeys: licenseKeys, resources: [resources[0].url]),
            RecordedVideo(id: "clear-show", name: "clear-show", master: resources[1].url, duration: 2, protection: "clear",
                          resources: [resources[1].url]),
        ]
        try RecordedCatalog(videos: videos, resources: resources).write(to: directory)
        return directory
    }

    static func license(_ client: RawHTTPConnection, asset: String, key: String) async throws -> (Int, [UInt8]) {
        let request = LicenseRequest(assetID: asset, keyID: key, nonce: "n-\(key)", terms: .purchase)
        try client.request("POST", "/license", body: Array(try JSONEncoder().encode(request)))
        let response = try #require(try await client.readResponse())
        return (response.status, response.body)
    }

    @Test func aRecordedSKDKeyIsAnsweredAndItsCatalogEntryNamesTheLicense() async throws {
        let directory = try Self.catalog("fp-show", licenseKeys: [
            "skd://recorded-asset/key-7", "data:text/plain;base64,AAAA", "skd://host-only", "skd://recorded-asset/key-7",
        ])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let recorded = try RecordedContent.load([directory], reservedIDs: ["clear", "protected"])
        try await withOrigin({ configuration in
            configuration.recorded = recorded
            configuration.licenseSecret = Self.secret
        }) { server in
            let client = try RawHTTPConnection(port: server.port)
            // The entry names the certificate, the license and the one answerable key, as a fixture skd video's does.
            try client.request("GET", "/videos/fp-show")
            let entry = try JSONDecoder().decode(VideoDocument.self, from: Data(try #require(try await client.readResponse()).body))
            let systems = try #require(entry.sources.first?.keySystems)
            #expect(systems == [KeySystemDocument(
                name: "com.apple.fps.1_0", certificateURL: "/license/certificate", licenseURL: "/license",
                keyURI: "skd://recorded-asset/key-7")])
            try client.request("GET", "/videos/protected")
            let fixture = try JSONDecoder().decode(VideoDocument.self, from: Data(try #require(try await client.readResponse()).body))
            #expect(fixture.sources.first?.keySystems?.first?.licenseURL == systems[0].licenseURL)
            try client.request("GET", "/videos")
            let list = try JSONDecoder().decode(VideoListDocument.self, from: Data(try #require(try await client.readResponse()).body))
            #expect(list.videos.first { $0.id == "fp-show" }?.sources.first?.keySystems == systems)
            #expect(list.videos.first { $0.id == "clear-show" }?.sources.first?.keySystems == nil)

            // A license for it: signed, with the deterministic key of (asset, key id).
            let (status, body) = try await Self.license(client, asset: "recorded-asset", key: "key-7")
            #expect(status == 200, "\(String(decoding: body, as: UTF8.self))")
            let license = try JSONDecoder().decode(License.self, from: Data(body))
            let expected = try #require(RecordedLicenseKey(uri: "skd://recorded-asset/key-7")).contentKey
            #expect(license.contentKey == Data(expected) && expected.count == 16)
            #expect(license.assetID == "recorded-asset" && license.keyID == "key-7")
            #expect(LicenseSignature.verify(license, secret: Self.secret))

            // Refused as the server refuses any: a key the asset does not have, an asset no one has.
            for (asset, key, code) in [("recorded-asset", "key-8", LicenseErrorCode.unknownKey),
                                       ("host-only", "x", .unknownAsset), ("nobody", "key-7", .unknownAsset)] {
                let (refused, answer) = try await Self.license(client, asset: asset, key: key)
                let error = try JSONDecoder().decode(LicenseErrorResponse.self, from: Data(answer))
                #expect(refused == 404 && error.code == code, "\(asset)/\(key): \(refused) \(error)")
            }
            // The fixture's own keys are answered as before.
            let keyID = try #require(server.store.catalog.keyID(for: "protected"))
            #expect(try await Self.license(client, asset: "protected", key: keyID).0 == 200)
            #expect(server.licenseServer.records.contains { event in
                if case .licenseIssued(let asset, _, _, _, _, _) = event.kind { return asset == "recorded-asset" }
                return false
            })
        }
    }

    @Test func onlySKDURIsOfAnAssetAndAKeyIDAreLicenseKeys() {
        #expect(RecordedLicenseKey(uri: "SKD://a/b").map { [$0.assetID, $0.keyID] } == ["a", "b"])
        for uri in ["skd://a", "skd://a/", "skd:///b", "skd://a/b/c", "data:text/plain;base64,AA", "https://a/b"] {
            #expect(RecordedLicenseKey(uri: uri) == nil, "\(uri)")
        }
        #expect(RecordedLicenseKey(uri: "skd://a/b")?.contentKey != RecordedLicenseKey(uri: "skd://a/c")?.contentKey)
    }
}
