import Crypto
import FixtureOrigin
import Foundation
import Testing

/// `GET /videos/{id}/manifest.json` over a socket: the hash manifest of that video only,
/// the same as the in-process API, and true of the bytes the origin then serves.
@Suite(.timeLimit(.minutes(2))) struct OriginServerManifestTests {
    @Test func servesOneVideosManifestThatMatchesWhatItServes() async throws {
        try await withOrigin { server in
            // The in-process manifest hashes every file of the video: made before the
            // connection opens, so a loaded machine cannot stretch the pause between two
            // requests past the origin's read-idle timeout (which closes the connection).
            let expected = try server.store.hashManifest(videoIDs: ["protected"])
            let client = try RawHTTPConnection(port: server.port, timeoutSeconds: 30)
            try client.request("GET", "/videos/protected/manifest.json")
            let response = try #require(try await client.readResponse())
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == "application/json")
            let manifest = try JSONDecoder().decode(HashManifest.self, from: Data(response.body))
            #expect(manifest == expected)
            #expect(manifest.seed == server.store.catalog.configuration.seed)
            #expect(!manifest.entries.isEmpty)
            #expect(manifest.entries.keys.allSatisfy { $0 == "/videos/protected" || $0.hasPrefix("/videos/protected/") })
            #expect(manifest.entries["/videos/protected/manifest.json"] == nil)

            // What the origin serves next hashes to the manifest's entries.
            for path in ["/videos/protected/400k/seg1.ts", "/videos/protected/master.m3u8"] {
                try client.request("GET", path)
                let served = try #require(try await client.readResponse())
                let hash = SHA256.hash(data: served.body).map { String(format: "%02x", $0) }.joined()
                #expect(manifest.entries[path]?.sha256 == hash, "\(path)")
                #expect(manifest.entries[path]?.byteCount == served.body.count, "\(path)")
            }
            try client.request("GET", "/videos/no-such-video/manifest.json")
            #expect(try await client.readResponse()?.status == 404)
        }
    }
}
