@testable import FixtureOrigin
import Foundation
import Testing
import TestSupport

/// A client that sends through a forward proxy writes the absolute-form request target
/// (`GET http://host/path`); the origin answers it as the origin-form it names (RFC 9112
/// §3.2.2), logged by its path and attributed to the interface whose PROXY header it came with.
@Suite struct AbsoluteFormTests {
    @Test(arguments: [
        ("http://origin.example/videos/clear/master.m3u8", "/videos/clear/master.m3u8"),
        ("HTTPS://origin.example:8443/a?b=1", "/a?b=1"),
        ("http://origin.example?x=1", "/?x=1"),
        ("http://origin.example", "/"),
        ("/videos/clear/master.m3u8", "/videos/clear/master.m3u8"),
        ("*", "*"),
        ("httpx://not-a-scheme/a", "httpx://not-a-scheme/a"),
    ])
    func theTargetLosesItsSchemeAndAuthority(target: String, expected: String) {
        #expect(OriginRequest.originForm(target) == expected)
    }

    @Test func anAbsoluteFormRequestIsServedAndAttributedLikeItsPath() async throws {
        try await withOrigin({ $0.requiresProxyHeader = true; $0.interfaces = ["127.0.0.1:9001": "wifi"] }) { server in
            let client = try RawHTTPConnection(port: server.port)
            try client.send("PROXY TCP4 10.0.0.7 127.0.0.1 40000 9001\r\n"
                + "GET http://origin.example/videos/clear/master.m3u8 HTTP/1.1\r\nHost: origin.example\r\n\r\n")
            let response = try #require(try await client.readResponse())
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self).hasPrefix("#EXTM3U"))
            let log = try await waitForLog(server, count: 1)
            #expect(log.first?.path == "/videos/clear/master.m3u8" && log.first?.interface == "wifi", "\(log)")
        }
    }
}
