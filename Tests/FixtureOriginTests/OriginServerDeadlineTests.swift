import BenchCore
import FixtureOrigin
import Foundation
import TestSupport
import Testing

/// Live-socket tests of the request deadline (`OriginConfiguration.requestTimeout`):
/// slow senders are answered 408 and closed, honest slow clients are served.
///
/// Serialized: the raw client blocks its thread while it waits, and these tests wait on
/// purpose; run side by side on a 2-core machine they would starve each other's timing.
@Suite(.serialized, .timeLimit(.minutes(5))) struct OriginServerDeadlineTests {
    /// A head sent one byte every 100 ms would take over 12 s; the deadline is 500 ms and
    /// the read-idle timeout a minute, so only the deadline can end it early.
    @Test func cutsOffAClientTricklingItsHead() async throws {
        try await withOrigin({ $0.requestTimeout = .milliseconds(500); $0.idleTimeout = .seconds(60) }) { server in
            let client = try RawHTTPConnection(port: server.port, timeoutSeconds: 30)
            let head = Array(("GET /videos HTTP/1.1\r\nHost: origin.test\r\nX-Padding: "
                + String(repeating: "trickle-", count: 10) + "\r\n\r\n").utf8)
            var sent = 0
            while sent < head.count, !(await client.waitForReadable(milliseconds: 100)) {
                try client.send([head[sent]])
                sent += 1
            }
            #expect(sent < head.count, "the whole head went out: the server never cut the client off")
            let response = try #require(try await client.readResponse())
            #expect(response.status == 408)
            #expect(response.headers["connection"] == "close")
            #expect(try await client.readToEOF().isEmpty)
            let log = try await waitForLog(server, count: 1)
            #expect(log.map(\.status) == [408])
            #expect(log.first?.method == "-" && log.first?.completed == true)
        }
    }

    /// A head with `Content-Length: 100`, a few body bytes, then silence.
    @Test func cutsOffAClientThatGoesSilentAfterTheHead() async throws {
        try await withOrigin({ $0.requestTimeout = .milliseconds(500); $0.idleTimeout = .seconds(60) }) { server in
            let client = try RawHTTPConnection(port: server.port, timeoutSeconds: 30)
            try client.send("POST /license HTTP/1.1\r\nHost: origin.test\r\nContent-Length: 100\r\n\r\n{\"asset")
            let response = try #require(try await client.readResponse())
            #expect(response.status == 408)
            #expect(response.headers["connection"] == "close")
            #expect(try await client.readToEOF().isEmpty)
            let log = try await waitForLog(server, count: 1)
            #expect(log.map(\.status) == [408])
            #expect(log.first?.method == "POST" && log.first?.path == "/license")
            // The license server never saw it, but records it (recorded before the 408 left).
            let rejected = server.licenseServer.records.compactMap { event -> String? in
                guard case let .requestRejected(_, method, path, status, _) = event.kind else { return nil }
                return "\(method) \(path) \(status)"
            }
            #expect(rejected == ["POST /license 408"])
        }
    }

    /// A request sent in four pieces 200 ms apart arrives well within a 10 s deadline.
    /// (The pauses block this thread rather than suspend the task, so a busy task pool
    /// cannot stretch them.)
    @Test func servesASlowRequestThatArrivesInTime() async throws {
        try await withOrigin({ $0.requestTimeout = .seconds(10) }) { server in
            let client = try RawHTTPConnection(port: server.port)
            try await OffPool.run {
                for piece in ["POST /_control/back", "ground HTTP/1.1\r\nHost: o\r\n", "Content-Length: 4\r\n\r\n", "true"] {
                    try client.send(piece)
                    usleep(200_000)
                }
            }
            #expect(try await client.readResponse()?.status == 204)
            #expect(server.licenseServer.appInBackground)
        }
    }

    /// Keep-alive silence between requests, five times the deadline, is not counted.
    @Test func doesNotCountTheWaitBetweenRequests() async throws {
        try await withOrigin({ $0.requestTimeout = .milliseconds(300); $0.idleTimeout = .seconds(60) }) { server in
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", "/videos")
            #expect(try await client.readResponse()?.status == 200)
            try await watchWindow(.milliseconds(1500))  // the property: this much silence is not counted
            try client.request("GET", "/videos/clear")
            #expect(try await client.readResponse()?.status == 200)
            #expect(server.requestLog.allSatisfy { $0.status == 200 })
        }
    }

    /// 200 connections each hold a partial request head (memory the server must not keep
    /// for ever): a normal client is still served, and every one of them is answered 408
    /// and closed at the deadline.
    @Test func closesManyPartialRequestsAtTheDeadlineAndKeepsServing() async throws {
        try await withOrigin({ $0.requestTimeout = .seconds(5); $0.idleTimeout = .seconds(120) }) { server in
            var partial: [RawHTTPConnection] = []
            for index in 0..<200 {
                let client = try RawHTTPConnection(port: server.port, timeoutSeconds: 60)
                try client.send("GET /videos/clear/master.m3u8 HTTP/1.1\r\nHost: origin.test\r\nX-Partial: \(index)")
                partial.append(client)
            }
            let normal = try RawHTTPConnection(port: server.port)
            try normal.request("GET", "/videos/clear/master.m3u8")
            #expect(try await normal.readResponse()?.status == 200)
            var timedOut = 0
            for client in partial {
                if try await client.readResponse()?.status == 408, try await client.readToEOF().isEmpty { timedOut += 1 }
            }
            #expect(timedOut == 200)
            let log = try await waitForLog(server, count: 201)
            #expect(log.filter { $0.status == 408 }.count == 200)
            #expect(log.filter { $0.status == 200 }.count == 1)
        }
    }
}
