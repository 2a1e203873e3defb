import FixtureOrigin
import Foundation
import Testing

/// Live-socket tests of fault rules: what the client sees and what the log says.
@Suite struct OriginServerFaultTests {
    static let segment = "/videos/clear/400k/seg0.ts"

    static func rules(_ fault: HTTPFault, path: String = segment) throws -> FaultRuleSet {
        try FaultRuleSet(rules: [FaultRule(id: "rule", path: path, fault: fault)])
    }

    @Test func answers503WithRetryAfter() async throws {
        try await withOrigin { server in
            server.setFaultRules(try Self.rules(.status(503, retryAfter: .milliseconds(1500))))
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", Self.segment)
            let response = try #require(try client.readResponse())
            #expect(response.status == 503)
            #expect(response.headers["retry-after"] == "2")
            let log = try await waitForLog(server, count: 1)
            #expect(log.first?.faultRuleID == "rule")
            #expect(log.first?.status == 503)
        }
    }

    @Test func truncatesTheBodyThenCloses() async throws {
        try await withOrigin { server in
            server.setFaultRules(try Self.rules(.truncateBody(afterBytes: 100)))
            let length = try #require(server.store.resource(at: Self.segment)).bytes.count
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", Self.segment)
            let response = try #require(try client.readResponse())
            #expect(response.status == 200)
            #expect(response.headers["content-length"] == String(length))
            #expect(response.body.count == 100)
            #expect(response.cutShort)
            #expect(client.sawEOF)
            let log = try await waitForLog(server, count: 1)
            #expect(log.first?.bytesSent == 100)
            #expect(log.first?.completed == false)
        }
    }

    @Test func declaresAWrongLengthThenCloses() async throws {
        try await withOrigin { server in
            server.setFaultRules(try Self.rules(.wrongContentLength(delta: 50)))
            let expected = try #require(server.store.resource(at: Self.segment)).bytes
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", Self.segment)
            let response = try #require(try client.readResponse())
            #expect(response.headers["content-length"] == String(expected.count + 50))
            #expect(response.body == expected)
            #expect(response.cutShort)
        }
    }

    @Test func stallsThenSendsTheRest() async throws {
        try await withOrigin { server in
            server.setFaultRules(try Self.rules(.stallBody(afterBytes: 10, duration: .milliseconds(200))))
            let expected = try #require(server.store.resource(at: Self.segment)).bytes
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", Self.segment)
            let response = try #require(try client.readResponse())
            #expect(response.body == expected)
            let log = try await waitForLog(server, count: 1)
            #expect((log.first?.durationNanoseconds ?? 0) >= 200_000_000)
        }
    }

    @Test func stallsForeverUntilTheClientGivesUp() async throws {
        try await withOrigin { server in
            server.setFaultRules(try Self.rules(.stallBody(afterBytes: 10, duration: nil)))
            var client: RawHTTPConnection? = try RawHTTPConnection(port: server.port, timeoutSeconds: 30)
            try client?.request("GET", Self.segment)
            // The head and the first 10 bytes come (however slow a loaded machine makes the
            // segment lookup), then nothing: a read waiting for the rest times out.
            let head = try #require(try client?.readResponse(head: true))
            #expect(head.status == 200)
            client?.setReadTimeout(seconds: 1)
            #expect(throws: RawHTTPConnection.Failure.self) { _ = try client?.readToEOF() }
            client = nil  // closes the socket: the client gives up
            let log = try await waitForLog(server, count: 1)
            #expect(log.first?.bytesSent == 10)
            #expect(log.first?.completed == false)
        }
    }

    @Test func delaysTheFirstByte() async throws {
        try await withOrigin { server in
            server.setFaultRules(try Self.rules(.addedTimeToFirstByte(.milliseconds(150))))
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", Self.segment)
            #expect(try client.readResponse()?.status == 200)
            let log = try await waitForLog(server, count: 1)
            #expect((log.first?.timeToFirstByteNanoseconds ?? 0) >= 150_000_000)
        }
    }

    @Test func breaksPlaylists() async throws {
        let master = "/videos/clear/master.m3u8"
        try await withOrigin { server in
            server.setFaultRules(try Self.rules(.malformedPlaylist, path: master))
            let original = try #require(server.store.resource(at: master))
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", master)
            let response = try #require(try client.readResponse())
            let text = HTTPFault.corrupt(playlist: String(decoding: original.bytes, as: UTF8.self))
            #expect(response.body == Array(text.utf8))
            #expect(response.headers["etag"] != original.etag)
        }
    }
}
