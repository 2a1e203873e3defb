import FixtureOrigin
import Foundation
import Testing

/// Live-socket tests of requests a client should not send: what the origin answers, that
/// it logs them, and that it goes on serving everyone else.
@Suite(.timeLimit(.minutes(5))) struct OriginServerBadRequestTests {
    static let master = "/videos/clear/master.m3u8"

    /// NIO's decoder allows 80 KiB of header fields; 100 KiB is refused with 400 (or, if
    /// the close races the rest of the upload, a reset) and logged; the server still serves.
    @Test func refusesOversizedHeadersAndKeepsServing() async throws {
        try await withOrigin { server in
            let client = try RawHTTPConnection(port: server.port)
            let huge = String(repeating: "a", count: 100 * 1024)
            // The server may close while this is still being sent: a failed send is allowed.
            try? client.send("GET \(Self.master) HTTP/1.1\r\nHost: origin.test\r\nX-Huge: \(huge)\r\n\r\n")
            let answer = String(decoding: try await client.readToEOF(), as: UTF8.self)
            #expect(client.sawEOF)
            #expect(answer.isEmpty || answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(80))")
            let log = try await waitForLog(server, count: 1)
            #expect(log.map(\.status) == [400])
            #expect(log.first?.method == "-")

            let other = try RawHTTPConnection(port: server.port)
            try other.request("GET", Self.master)
            #expect(try await other.readResponse()?.status == 200)
        }
    }

    /// What really happens to methods the origin does not serve: a token NIO's parser
    /// (llhttp) does not know is a parse error (400, close); one it knows but `HTTPMethod`
    /// has no case for (`SOURCE`) is 501; a known method on content is 405 with `Allow`.
    @Test func answersUnknownMethodsByWhatTheParserKnows() async throws {
        try await withOrigin { server in
            let foo = try RawHTTPConnection(port: server.port)
            try foo.send("FOO /videos HTTP/1.1\r\nHost: origin.test\r\n\r\n")
            #expect(String(decoding: try await foo.readToEOF(), as: UTF8.self).hasPrefix("HTTP/1.1 400"))

            let client = try RawHTTPConnection(port: server.port)
            try client.request("SOURCE", "/videos")
            #expect(try await client.readResponse()?.status == 501)
            try client.request("PROPFIND", "/videos")
            let propfind = try #require(try await client.readResponse())
            #expect(propfind.status == 405)
            #expect(propfind.headers["allow"] == "GET, HEAD")
            try client.request("GET", "/videos")  // the same connection goes on
            #expect(try await client.readResponse()?.status == 200)

            let log = try await waitForLog(server, count: 4)
            #expect(log.map(\.status).sorted() == [200, 400, 405, 501])
            #expect(log.contains { $0.method == "SOURCE" && $0.status == 501 })
        }
    }

    @Test func keepsAnHTTP10ConnectionThatAsksForKeepAlive() async throws {
        try await withOrigin { server in
            let client = try RawHTTPConnection(port: server.port)
            try client.send("GET \(Self.master) HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let first = try #require(try await client.readResponse())
            #expect(first.status == 200)
            #expect(first.headers["connection"]?.lowercased() == "keep-alive")
            try client.send("GET /videos HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try await client.readResponse()?.status == 200)
            let log = try await waitForLog(server, count: 2)
            #expect(Set(log.map(\.connectionID)).count == 1)
        }
    }

    @Test func closesAnHTTP10ConnectionWithoutKeepAlive() async throws {
        try await withOrigin { server in
            let client = try RawHTTPConnection(port: server.port)
            try client.send("GET \(Self.master) HTTP/1.0\r\n\r\n")
            let response = try #require(try await client.readResponse())
            #expect(response.status == 200)
            #expect(response.headers["connection"] == "close")
            #expect(try await client.readToEOF().isEmpty)
            #expect(client.sawEOF)
        }
    }

    /// Every path here names a real resource once a resolver removes its dot segments or
    /// decodes it (the key, the master playlist): the origin does neither, so they are
    /// all 404, while the canonical paths are served. Clients remove dot segments before
    /// sending (RFC 3986 §5.2.4); one that arrives is refused, never resolved.
    @Test func refusesTraversalAndDotSegmentsWhileServingTheCanonicalPaths() async throws {
        try await withOrigin { server in
            let client = try RawHTTPConnection(port: server.port)
            for path in ["/videos/http-key/key", Self.master] {
                try client.request("GET", path)
                #expect(try await client.readResponse()?.status == 200, "\(path)")
            }
            for path in [
                "/videos/http-key/400k/../key", "/videos/./clear/master.m3u8", "/videos/clear/./master.m3u8",
                "/videos/clear/../../etc/passwd", "/videos/../videos/clear/master.m3u8", "/videos/clear/%2e%2e/key",
                "/videos/http-key/400k/%2E%2E/key", "/videos/clear/master%2Em3u8", "//videos/clear/master.m3u8",
                "/videos//clear/master.m3u8", "/videos/clear/master.m3u8/",
                "/nope", "/videos/missing/master.m3u8",
            ] {
                try client.request("GET", path)
                #expect(try await client.readResponse()?.status == 404, "\(path)")
            }
        }
    }
}
