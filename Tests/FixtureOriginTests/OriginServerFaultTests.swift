import FixtureOrigin
import Foundation
import Testing

/// Live-socket tests of fault rules: what the client sees and what the log says.
@Suite(.timeLimit(.minutes(5))) struct OriginServerFaultTests {
    static let segment = "/videos/clear/400k/seg0.ts"

    static func rules(_ fault: HTTPFault, path: String = segment) throws -> FaultRuleSet {
        try FaultRuleSet(rules: [FaultRule(id: "rule", path: path, fault: fault)])
    }

    @Test func answers503WithRetryAfter() async throws {
        try await withOrigin { server in
            server.setFaultRules(try Self.rules(.status(503, retryAfter: .milliseconds(1500))))
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", Self.segment)
            let response = try #require(try await client.readResponse())
            #expect(response.status == 503)
            #expect(response.headers["retry-after"] == "2")
            let log = try await waitForLog(server, count: 1)
            #expect(log.first?.faultRuleID == "rule")
            #expect(log.first?.status == 503)
        }
    }

    /// 410 and 500 replace the answer (no Retry-After); the connection stays usable.
    @Test(arguments: [410, 500])
    func answersAStatusFault(code: Int) async throws {
        try await withOrigin { server in
            server.setFaultRules(try Self.rules(.status(code, retryAfter: nil)))
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", Self.segment)
            let response = try #require(try await client.readResponse())
            #expect(response.status == code)
            #expect(response.headers["retry-after"] == nil)
            #expect(response.body.count < 100)  // a short text, not the segment
            try client.request("GET", "/videos")
            #expect(try await client.readResponse()?.status == 200)
            let log = try await waitForLog(server, count: 2)
            #expect(log.map(\.status) == [code, 200])
            #expect(log.map(\.faultRuleID) == ["rule", nil])
        }
    }

    @Test func truncatesTheBodyThenCloses() async throws {
        try await withOrigin { server in
            server.setFaultRules(try Self.rules(.truncateBody(afterBytes: 100)))
            let length = try #require(server.store.resource(at: Self.segment)).bytes.count
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", Self.segment)
            let response = try #require(try await client.readResponse())
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
            let response = try #require(try await client.readResponse())
            #expect(response.headers["content-length"] == String(expected.count + 50))
            #expect(response.body == expected)
            #expect(response.cutShort)
        }
    }

    /// A length 50 bytes short: the client reads that many, then finds the other 50 and
    /// the end of the connection (the server closes so they are never taken for a response).
    @Test func declaresAShortLengthThenCloses() async throws {
        try await withOrigin { server in
            server.setFaultRules(try Self.rules(.wrongContentLength(delta: -50)))
            let expected = try #require(server.store.resource(at: Self.segment)).bytes
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", Self.segment)
            let response = try #require(try await client.readResponse())
            #expect(response.headers["content-length"] == String(expected.count - 50))
            #expect(response.body == Array(expected.prefix(expected.count - 50)))
            #expect(!response.cutShort)
            #expect(try await client.readToEOF() == Array(expected.suffix(50)))
            #expect(client.sawEOF)
            let log = try await waitForLog(server, count: 1)
            #expect(log.first?.bytesSent == expected.count && log.first?.faultRuleID == "rule")
        }
    }

    /// Probability 0.5 with a fixed seed over 40 requests: some fire, some do not, and the
    /// same seed loaded again gives the same sequence over the wire.
    @Test func firesWithTheRuleProbabilityReproducibly() async throws {
        func run(_ server: OriginServer, seed: UInt64) async throws -> [Bool] {
            server.setFaultRules(try FaultRuleSet(
                rules: [FaultRule(id: "coin", path: "/videos", fault: .status(503, retryAfter: nil), probability: 0.5)],
                seed: seed))
            let client = try RawHTTPConnection(port: server.port)
            var fired: [Bool] = []
            for _ in 0..<40 {
                try client.request("GET", "/videos")
                let status = try #require(try await client.readResponse()).status
                #expect(status == 503 || status == 200)
                fired.append(status == 503)
            }
            return fired
        }
        try await withOrigin { server in
            let first = try await run(server, seed: 7)
            let fired = first.filter { $0 }.count
            #expect(fired > 5 && fired < 35, "fired \(fired) of 40")
            #expect(server.faultRules.fired["coin"] == fired)
            #expect(try await run(server, seed: 7) == first)
            #expect(try await run(server, seed: 8) != first)  // 2^-40 odds of a clash
        }
    }

    @Test func stallsThenSendsTheRest() async throws {
        try await withOrigin { server in
            server.setFaultRules(try Self.rules(.stallBody(afterBytes: 10, duration: .milliseconds(200))))
            let expected = try #require(server.store.resource(at: Self.segment)).bytes
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", Self.segment)
            let response = try #require(try await client.readResponse())
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
            let head = try #require(try await client?.readResponse(head: true))
            #expect(head.status == 200)
            #expect(try await client?.read(count: 10).count == 10, "the 10 bytes before the stall never came")
            // The property is a window of silence: no byte and no close for a second.
            client?.setReadTimeout(seconds: 1)
            var timedOut = false
            do { _ = try await client?.readToEOF() } catch is RawHTTPConnection.Failure { timedOut = true }
            #expect(timedOut, "a read after the stall should time out")
            client = nil  // closes the socket: the client gives up
            let log = try await waitForLog(server, count: 1)
            #expect(log.first?.bytesSent == 10)
            #expect(log.first?.completed == false)
        }
    }

    /// A response under way is listed in progress (path, Range, no bytes counted yet)
    /// until its record is in the log: what the harness reads at a kill.
    @Test func listsAResponseInProgressUntilItIsLogged() async throws {
        try await withOrigin { server in
            server.setFaultRules(try Self.rules(.stallBody(afterBytes: 10, duration: nil)))
            #expect(server.responsesInProgress.isEmpty)
            var client: RawHTTPConnection? = try RawHTTPConnection(port: server.port, timeoutSeconds: 30)
            try client?.request("GET", Self.segment, headers: ["Range": "bytes=0-"])
            _ = try #require(try await client?.readResponse(head: true))
            let running = server.responsesInProgress
            #expect(running.map(\.path) == [Self.segment])
            #expect(running.first?.range == "bytes=0-")
            #expect(running.first?.completed == false)
            #expect(server.requestLog.isEmpty)
            client = nil  // closes the socket: the response ends and is logged
            let log = try await waitForLog(server, count: 1)
            #expect(log.first?.path == Self.segment)
            #expect(server.responsesInProgress.isEmpty)
        }
    }

    @Test func delaysTheFirstByte() async throws {
        try await withOrigin { server in
            server.setFaultRules(try Self.rules(.addedTimeToFirstByte(.milliseconds(150))))
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", Self.segment)
            #expect(try await client.readResponse()?.status == 200)
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
            let response = try #require(try await client.readResponse())
            let text = HTTPFault.corrupt(playlist: String(decoding: original.bytes, as: UTF8.self))
            #expect(response.body == Array(text.utf8))
            #expect(response.headers["etag"] != original.etag)
        }
    }
}
