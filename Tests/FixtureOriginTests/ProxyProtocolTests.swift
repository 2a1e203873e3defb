@testable import FixtureOrigin
import Foundation
import NIOCore
import NIOEmbedded
import Testing

/// The PROXY v1 header: the parser alone, the decoder on an embedded channel, then
/// through a live origin.
@Suite(.timeLimit(.minutes(2))) struct ProxyProtocolTests {
    static func parse(_ line: String) throws(ProxyHeader.ParseError) -> ProxyHeader {
        try ProxyHeader.parse(line: Array(line.utf8))
    }

    @Test func parsesTCP4() throws {
        let header = try Self.parse("PROXY TCP4 192.168.1.5 127.0.0.1 51000 8081")
        #expect(header.family == .tcp4)
        #expect(header.source?.description == "192.168.1.5:51000")
        #expect(header.destination?.description == "127.0.0.1:8081")
    }

    @Test func parsesTCP6AndUnknown() throws {
        let header = try Self.parse("PROXY TCP6 ::1 fe80::2 1 65535")
        #expect(header.destination?.description == "[fe80::2]:65535")
        #expect(try Self.parse("PROXY UNKNOWN").family == .unknown)
        #expect(try Self.parse("PROXY UNKNOWN ffff::1 ::1 1 2").destination == nil)
    }

    @Test func refusesMalformedHeaders() {
        for line in [
            "PROXY TCP5 1.2.3.4 5.6.7.8 1 2", "PROXY TCP4 1.2.3.4 5.6.7.8 1", "PROXY TCP4 1.2.3.256 5.6.7.8 1 2",
            "PROXY TCP4 1.2.3.4 5.6.7.8 1 65536", "PROXY TCP4 ::1 5.6.7.8 1 2", "PROXY TCP6 1.2.3.4 ::1 1 2",
            "PROXY  TCP4 1.2.3.4 5.6.7.8 1 2", "PROXY TCP4 1.2.3.4 5.6.7.8 -1 2",
        ] {
            #expect(throws: ProxyHeader.ParseError.malformed, "\(line)") { try Self.parse(line) }
        }
        #expect(throws: ProxyHeader.ParseError.tooLong) { try Self.parse("PROXY UNKNOWN " + String(repeating: "x", count: 100)) }
    }

    /// In harness runs every request must come through the conditioner: one that comes
    /// straight to the origin gets no answer (its connection is reset) and is logged as
    /// rejected; one with a PROXY header is served as usual.
    @Test func aRequestWithoutAProxyHeaderIsRefusedAndLoggedWhenOneIsRequired() async throws {
        try await withOrigin({ $0.requiresProxyHeader = true; $0.interfaces = ["127.0.0.1:9001": "wifi"] }) { server in
            let direct = try RawHTTPConnection(port: server.port)
            try direct.request("GET", "/videos/clear/master.m3u8", headers: ["Range": "bytes=0-9"])
            #expect(try await direct.readToEOF().isEmpty, "a direct request got an answer")
            let proxied = try RawHTTPConnection(port: server.port)
            try proxied.send("PROXY TCP4 10.0.0.7 127.0.0.1 40000 9001\r\nGET /videos HTTP/1.1\r\nHost: o\r\n\r\n")
            #expect(try await proxied.readResponse()?.status == 200)
            let log = try await waitForLog(server, count: 2)
            let refused = try #require(log.first { $0.rejection != nil }, "\(log)")
            #expect(refused.interface == nil && refused.status == 0 && refused.bytesSent == 0 && !refused.completed)
            #expect(refused.path == "/videos/clear/master.m3u8" && refused.range == "bytes=0-9")
            #expect(refused.rejection?.contains("did not come through the link conditioner") == true)
            #expect(log.contains { $0.interface == "wifi" && $0.status == 200 && $0.rejection == nil })
        }
        // Not required (bench origin, bench compare): a direct request is served.
        try await withOrigin { server in
            let direct = try RawHTTPConnection(port: server.port)
            try direct.request("GET", "/videos")
            #expect(try await direct.readResponse()?.status == 200)
        }
    }

    @Test func namesTheInterfaceFromTheDestination() async throws {
        try await withOrigin({ $0.interfaces = ["127.0.0.1:9001": "wifi"] }) { server in
            let client = try RawHTTPConnection(port: server.port)
            try client.send("PROXY TCP4 10.0.0.7 127.0.0.1 40000 9001\r\nGET /videos HTTP/1.1\r\nHost: o\r\n\r\n")
            #expect(try await client.readResponse()?.status == 200)
            let other = try RawHTTPConnection(port: server.port)
            try other.send("PROXY TCP4 10.0.0.7 127.0.0.1 40001 9002\r\n")
            try other.request("GET", "/videos")
            #expect(try await other.readResponse()?.status == 200)
            let log = try await waitForLog(server, count: 2)
            #expect(Set(log.compactMap(\.interface)) == ["wifi", "127.0.0.1:9002"])
            #expect(log.contains { $0.proxySource == "10.0.0.7:40000" && $0.interface == "wifi" })
        }
    }

    /// The header in four pieces, each a read of its own: nothing is passed on until it
    /// is whole, then the request follows untouched. On an embedded channel, where each
    /// write is one read for certain (over a socket, pieces sent apart may still arrive
    /// together).
    @Test func acceptsAHeaderSplitAcrossReads() throws {
        let info = ConnectionInfo(id: 1)
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            ByteToMessageHandler(ProxyProtocolDecoder(info: info, interfaces: ["127.0.0.1:9001": "cell"])))
        for piece in ["PRO", "XY TCP4 10.0.0.7 127.0.0.1 40000 90", "01\r"] {
            try channel.writeInbound(ByteBuffer(string: piece))
            #expect(try channel.readInbound(as: ByteBuffer.self) == nil, "passed on before the header was whole")
            #expect(info.proxy == nil)
        }
        try channel.writeInbound(ByteBuffer(string: "\nGET /videos HTTP/1.1\r\nHost: o\r\n\r\n"))
        #expect(info.proxy?.source?.description == "10.0.0.7:40000")
        #expect(info.interface == "cell")
        var request = ""
        while let buffer = try channel.readInbound(as: ByteBuffer.self) { request += String(buffer: buffer) }
        #expect(request == "GET /videos HTTP/1.1\r\nHost: o\r\n\r\n")
        _ = try channel.finish()
    }

    @Test func closesOnAMalformedHeader() async throws {
        try await withOrigin { server in
            let client = try RawHTTPConnection(port: server.port)
            try client.send("PROXY TCP4 nonsense\r\nGET /videos HTTP/1.1\r\nHost: o\r\n\r\n")
            #expect(try await client.readToEOF().isEmpty)
            let long = try RawHTTPConnection(port: server.port)
            try long.send("PROXY UNKNOWN " + String(repeating: "x", count: 200))
            #expect(try await long.readToEOF().isEmpty)
        }
    }
}
