import BenchCore
import FixtureOrigin
import Foundation
import TestSupport
import Testing

@Suite struct CatalogDocumentTests {
    private func object(_ path: String) throws -> [String: Any] {
        let resource = try #require(contentStore.resource(at: path))
        #expect(resource.contentType == "application/json")
        return try #require(try JSONSerialization.jsonObject(with: Data(resource.bytes)) as? [String: Any])
    }

    @Test func videoDocumentHasTheSnakeCaseKeys() throws {
        let json = try object("/videos/multilang")
        #expect(Set(json.keys) == [
            "id", "name", "duration", "poster", "thumbnail", "text_tracks", "offline_enabled", "sources",
        ])
        #expect(json["id"] as? String == "multilang")
        #expect(json["duration"] as? Double == 64)
        #expect(json["offline_enabled"] as? Bool == true)
        #expect(json["poster"] as? String == "/videos/multilang/poster.png")
        #expect(json["thumbnail"] as? String == "/videos/multilang/thumb.png")
        let tracks = try #require(json["text_tracks"] as? [[String: Any]])
        #expect(tracks.compactMap { $0["language"] as? String } == ["en", "de"])
        #expect(tracks.first?["label"] as? String == "English")
        #expect(tracks.first?["url"] as? String == "/videos/multilang/subs/en/index.m3u8")
        let source = try #require((json["sources"] as? [[String: Any]])?.first)
        #expect(source["url"] as? String == "/videos/multilang/master.m3u8")
        #expect(source["type"] as? String == "application/x-mpegURL")
        #expect(source["key_systems"] == nil)
    }

    @Test func protectedSourcesNameTheirKeySystem() throws {
        let skd = try #require(((try object("/videos/protected"))["sources"] as? [[String: Any]])?.first)
        let fairPlay = try #require((skd["key_systems"] as? [[String: Any]])?.first)
        #expect(fairPlay["name"] as? String == "com.apple.fps.1_0")
        #expect(fairPlay["certificate_url"] as? String == "/license/certificate")
        #expect(fairPlay["license_url"] as? String == "/license")
        #expect(fairPlay["key_uri"] as? String == contentCatalog.keyURI(for: "protected"))
        let http = try #require(((try object("/videos/http-key"))["sources"] as? [[String: Any]])?.first)
        let aes = try #require((http["key_systems"] as? [[String: Any]])?.first)
        #expect(aes["name"] as? String == "aes-128")
        #expect(aes["key_url"] as? String == "/videos/http-key/key")
    }

    @Test func onlineOnlyVideoIsNotOfflineEnabled() throws {
        #expect(try object("/videos/online-only")["offline_enabled"] as? Bool == false)
    }

    @Test func listHasEveryVideoAndDecodesBack() throws {
        let json = try object("/videos")
        let videos = try #require(json["videos"] as? [[String: Any]])
        #expect(videos.compactMap { $0["id"] as? String } == contentCatalog.videos.map(\.id))
        let bytes = try #require(contentStore.resource(at: "/videos")).bytes
        let decoded = try JSONDecoder().decode(VideoListDocument.self, from: Data(bytes))
        #expect(decoded == VideoListDocument(contentCatalog))
    }

    @Test(.cpuHeavy) func everyURLIsRelativeAndServed() throws {
        for document in VideoListDocument(contentCatalog).videos {
            let urls = [document.poster, document.thumbnail] + document.textTracks.map(\.url)
                + document.sources.map(\.url) + document.sources.flatMap { $0.keySystems ?? [] }.compactMap(\.keyURL)
            for url in urls {
                #expect(url.hasPrefix("/") && !url.contains("://"))
                #expect(contentStore.resource(at: url) != nil, "\(url)")
            }
        }
    }
}
