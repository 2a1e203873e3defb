import Foundation
import Testing
import HLSPlaylist

struct URIResolutionTests {
    static let base = URL(string: "https://origin.example:8443/videos/42/hls/master.m3u8?token=abc")!

    static let table: [(uri: String, expected: String)] = [
        ("video/720p/index.m3u8", "https://origin.example:8443/videos/42/hls/video/720p/index.m3u8"),
        ("index.m3u8", "https://origin.example:8443/videos/42/hls/index.m3u8"),
        ("../audio/en.m3u8", "https://origin.example:8443/videos/42/audio/en.m3u8"),
        ("./seg0.ts", "https://origin.example:8443/videos/42/hls/seg0.ts"),
        ("/keys/1.key", "https://origin.example:8443/keys/1.key"),
        ("//cdn.example/v/a.ts", "https://cdn.example/v/a.ts"),
        ("my seg.ts", "https://origin.example:8443/videos/42/hls/my%20seg.ts"),
        ("seg.ts?x=1", "https://origin.example:8443/videos/42/hls/seg.ts?x=1"),
        ("http://other.example/a.m3u8", "http://other.example/a.m3u8"),
        ("HTTPS://Other.example/A.ts", "HTTPS://Other.example/A.ts"),
        ("skd://key-42", "skd://key-42"),
        ("skd://asset/7?kid=00ff", "skd://asset/7?kid=00ff"),
        ("data:text/plain;base64,AAAA", "data:text/plain;base64,AAAA"),
    ]

    @Test(arguments: 0..<table.count)
    func resolves(index: Int) {
        let (uri, expected) = Self.table[index]
        #expect(resolve(uri, against: Self.base)?.absoluteString == expected)
    }

    @Test func resolvesAgainstFileURLs() {
        let base = URL(fileURLWithPath: "/tmp/offline/asset/master.m3u8")
        #expect(resolve("v/index.m3u8", against: base)?.path == "/tmp/offline/asset/v/index.m3u8")
        #expect(resolve("skd://k", against: base)?.absoluteString == "skd://k")
    }
}
