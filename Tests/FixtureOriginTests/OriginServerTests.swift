import BenchCore
import FixtureOrigin
import Foundation
import Synchronization
import Testing

/// Live-socket tests of the origin's HTTP semantics: validators, ranges, HEAD,
/// keep-alive, bad requests and the request log.
@Suite(.timeLimit(.minutes(2))) struct OriginServerTests {
    static let master = "/videos/clear/master.m3u8"
    static let segment = "/videos/clear/400k/seg0.ts"

    @Test func servesTheMasterPlaylistWithValidators() async throws {
        try await withOrigin { server in
            let expected = try #require(server.store.resource(at: Self.master))
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", Self.master)
            let response = try #require(try await client.readResponse())
            #expect(response.status == 200)
            #expect(response.body == expected.bytes)
            #expect(response.headers["etag"] == expected.etag)
            #expect(response.headers["last-modified"] == HTTPDate.format(expected.lastModified))
            #expect(response.headers["accept-ranges"] == "bytes")
            #expect(response.headers["content-type"] == "application/vnd.apple.mpegurl")
        }
    }

    @Test func answersARangeWithExactlyThoseBytes() async throws {
        try await withOrigin { server in
            let expected = try #require(server.store.resource(at: Self.segment)).bytes
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", Self.segment, headers: ["Range": "bytes=10-99"])
            let response = try #require(try await client.readResponse())
            #expect(response.status == 206)
            #expect(response.body == Array(expected[10...99]))
            #expect(response.headers["content-range"] == "bytes 10-99/\(expected.count)")
            #expect(response.headers["content-length"] == "90")
        }
    }

    @Test func ignoresTheRangeWhenIfRangeDoesNotMatch() async throws {
        try await withOrigin { server in
            let expected = try #require(server.store.resource(at: Self.segment)).bytes
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", Self.segment, headers: ["Range": "bytes=10-99", "If-Range": "\"stale\""])
            let response = try #require(try await client.readResponse())
            #expect(response.status == 200)
            #expect(response.body == expected)
        }
    }

    /// If-Range with the current ETag, or with the Last-Modified date exactly, keeps the
    /// range: 206 with those bytes.
    @Test func honoursTheRangeWhenIfRangeMatches() async throws {
        try await withOrigin { server in
            let resource = try #require(server.store.resource(at: Self.segment))
            let client = try RawHTTPConnection(port: server.port)
            for validator in [resource.etag, HTTPDate.format(resource.lastModified)] {
                try client.request("GET", Self.segment, headers: ["Range": "bytes=10-99", "If-Range": validator])
                let response = try #require(try await client.readResponse())
                #expect(response.status == 206, "If-Range: \(validator)")
                #expect(response.body == Array(resource.bytes[10...99]))
                #expect(response.headers["content-range"] == "bytes 10-99/\(resource.bytes.count)")
            }
            // A date one second off is a mismatch: the whole resource.
            let other = HTTPDate.format(resource.lastModified.addingTimeInterval(1))
            try client.request("GET", Self.segment, headers: ["Range": "bytes=10-99", "If-Range": other])
            #expect(try await client.readResponse()?.status == 200)
        }
    }

    @Test func refusesARangeBeyondTheEnd() async throws {
        try await withOrigin { server in
            let length = try #require(server.store.resource(at: Self.segment)).bytes.count
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", Self.segment, headers: ["Range": "bytes=\(length)-"])
            let response = try #require(try await client.readResponse())
            #expect(response.status == 416)
            #expect(response.headers["content-range"] == "bytes */\(length)")
            #expect(response.body.isEmpty)
        }
    }

    @Test func headSendsTheTrueLengthAndNoBody() async throws {
        try await withOrigin { server in
            let length = try #require(server.store.resource(at: Self.segment)).bytes.count
            let client = try RawHTTPConnection(port: server.port)
            try client.request("HEAD", Self.segment)
            let head = try #require(try await client.readResponse(head: true))
            #expect(head.status == 200)
            #expect(head.headers["content-length"] == String(length))
            // Had a body followed, this second response would be parsed from it.
            try client.request("GET", Self.master)
            #expect(try await client.readResponse()?.status == 200)
        }
    }

    @Test func keepsTheConnectionForSeveralRequests() async throws {
        try await withOrigin { server in
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", Self.master)
            #expect(try await client.readResponse()?.status == 200)
            try client.request("GET", Self.segment)
            #expect(try await client.readResponse()?.status == 200)
            let log = try await waitForLog(server, count: 2)
            #expect(log.count == 2)
            #expect(Set(log.map(\.connectionID)).count == 1)
        }
    }

    @Test func closesAfterConnectionClose() async throws {
        try await withOrigin { server in
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", Self.master, headers: ["Connection": "close"])
            let response = try #require(try await client.readResponse())
            #expect(response.status == 200)
            #expect(response.headers["connection"] == "close")
            #expect(try await client.readToEOF().isEmpty)
        }
    }

    @Test func answersPipelinedRequestsInOrder() async throws {
        try await withOrigin { server in
            let client = try RawHTTPConnection(port: server.port)
            try client.send("GET /nope HTTP/1.1\r\nHost: o\r\n\r\nGET \(Self.master) HTTP/1.1\r\nHost: o\r\n\r\n")
            #expect(try await client.readResponse()?.status == 404)
            #expect(try await client.readResponse()?.status == 200)
        }
    }

    @Test func closesAnIdleConnection() async throws {
        try await withOrigin({ $0.idleTimeout = .milliseconds(100) }) { server in
            // The origin closes after 100 ms of silence; the read waits up to 90 s for
            // it (a fresh CI run once went 30 s without the close while ~60 live tests and
            // their child processes shared the two CPUs).
            let client = try RawHTTPConnection(port: server.port, timeoutSeconds: 90)
            #expect(try await client.readToEOF().isEmpty)
        }
    }

    @Test func answersGarbageWith400OrClosing() async throws {
        try await withOrigin { server in
            let client = try RawHTTPConnection(port: server.port)
            try client.send("\u{1}\u{2} not http at all\r\n\r\n")
            let rest = try await client.readToEOF()
            #expect(String(decoding: rest, as: UTF8.self).hasPrefix("HTTP/1.1 400"))
            let log = try await waitForLog(server, count: 1)
            #expect(log.count == 1 && log.first?.status == 400 && log.first?.method == "-")
        }
    }

    @Test func refusesOtherMethodsOnContent() async throws {
        try await withOrigin { server in
            let client = try RawHTTPConnection(port: server.port)
            try client.request("DELETE", Self.master)
            let response = try #require(try await client.readResponse())
            #expect(response.status == 405)
            #expect(response.headers["allow"] == "GET, HEAD")
        }
    }

    @Test func refusesALargeBodyWith413() async throws {
        try await withOrigin({ $0.maximumRequestBodyBytes = 1024 }) { server in
            let client = try RawHTTPConnection(port: server.port)
            try client.request("POST", "/license", body: Array(repeating: 0x41, count: 2048))
            #expect(try await client.readResponse()?.status == 413)
        }
    }

    @Test func refusesLicensesWhileTheAppIsInTheBackground() async throws {
        try await withOrigin { server in
            let client = try RawHTTPConnection(port: server.port)
            try client.request("POST", "/_control/background", body: Array("true".utf8))
            #expect(try await client.readResponse()?.status == 204)
            #expect(server.licenseServer.appInBackground)
            try client.request("POST", "/license", body: Array("{}".utf8))
            let response = try #require(try await client.readResponse())
            #expect(response.status == 403)
            #expect(String(decoding: response.body, as: UTF8.self).contains("app_in_background"))
        }
    }

    @Test func servesTheCertificate() async throws {
        try await withOrigin { server in
            let client = try RawHTTPConnection(port: server.port)
            try client.request("POST", "/license/certificate")
            let response = try #require(try await client.readResponse())
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == "application/json")
            let certificate = try JSONDecoder().decode(CertificateResponse.self, from: Data(response.body))
            #expect(certificate == server.licenseServer.certificate)
            #expect(!certificate.certificate.isEmpty)
        }
    }

    @Test func logsEveryRequestAndTellsTheSink() async throws {
        let seen = SinkBox()
        try await withOrigin(sink: { seen.append($0) }) { server in
            let client = try RawHTTPConnection(port: server.port)
            try client.request("GET", Self.segment, headers: ["Range": "bytes=0-9"])
            _ = try await client.readResponse()
            try client.request("GET", "/nope")
            _ = try await client.readResponse()
            let log = try await waitForLog(server, count: 2)
            #expect(log.map(\.status) == [206, 404])
            #expect(log[0].method == "GET")
            #expect(log[0].path == Self.segment)
            #expect(log[0].range == "bytes=0-9")
            #expect(log[0].bytesSent == 10)
            #expect(log[0].completed)
            #expect(log[0].interface == nil)
            #expect(log[0].timeToFirstByteNanoseconds != nil)
            #expect(log[0].durationNanoseconds >= log[0].timeToFirstByteNanoseconds ?? 0)
            #expect(seen.records == log)
        }
    }
}

/// Collects sink records from the event-loop thread.
final class SinkBox: Sendable {
    private let stored = Mutex<[OriginRequestRecord]>([])

    func append(_ record: OriginRequestRecord) {
        stored.withLock { $0.append(record) }
    }

    var records: [OriginRequestRecord] { stored.withLock { $0 } }
}
