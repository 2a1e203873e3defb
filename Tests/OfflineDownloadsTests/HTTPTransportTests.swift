import BenchCore
import FixtureOrigin
import Foundation
import HLSPlaylist
import OfflineDownloads
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The engine's transport against the real origin: whole and resumed downloads, what
/// the server's answers become, and sending through an interface's endpoint.
@Suite(.timeLimit(.minutes(2))) struct HTTPTransportTests {
    static let segment = "/videos/clear/1200k/seg1.ts"

    @Test func downloadsASegmentWhole() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try await withOriginAndTransport { server, transport in
            let expected = try #require(server.store.resource(at: Self.segment))
            let counted = Mutex(0)
            let result = try await transport.download(
                server.url(Self.segment), via: nil, to: scratch.file("a.part"), resumeAt: 0, etag: nil
            ) { n in counted.withLock { $0 += n } }
            #expect(result.length == Int64(expected.bytes.count) && result.received == result.length)
            #expect(result.etag == expected.etag && !result.restarted)
            #expect(counted.withLock { $0 } == expected.bytes.count)
            #expect(FileManager.default.contents(atPath: scratch.file("a.part")) == Data(expected.bytes))
        }
    }

    @Test func resumesWithRangeAndIfRange() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try await withOriginAndTransport { server, transport in
            let expected = try #require(server.store.resource(at: Self.segment))
            let part = scratch.file("b.part")
            try Data(expected.bytes.prefix(1000)).write(to: URL(fileURLWithPath: part))
            let result = try await transport.download(
                server.url(Self.segment), via: nil, to: part, resumeAt: 1000, etag: expected.etag) { _ in }
            #expect(!result.restarted && result.received == Int64(expected.bytes.count - 1000))
            #expect(FileManager.default.contents(atPath: part) == Data(expected.bytes))
            // The origin logs a request once its answer is written, which the client can see first.
            let log = try await server.requestLog(count: 1) { $0.path == Self.segment }
            #expect(log.last?.status == 206 && log.last?.range == "bytes=1000-")
        }
    }

    @Test func restartsWhenTheResourceChangedSinceThePartWasWritten() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try await withOriginAndTransport { server, transport in
            let expected = try #require(server.store.resource(at: Self.segment))
            let part = scratch.file("c.part")
            try Data(repeating: 0xEE, count: 5000).write(to: URL(fileURLWithPath: part))
            let result = try await transport.download(
                server.url(Self.segment), via: nil, to: part, resumeAt: 5000, etag: "\"stale\"") { _ in }
            #expect(result.restarted && result.length == Int64(expected.bytes.count))
            #expect(FileManager.default.contents(atPath: part) == Data(expected.bytes))
        }
    }

    @Test func aWholePartIsDoneWithoutABody() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try await withOriginAndTransport { server, transport in
            let expected = try #require(server.store.resource(at: Self.segment))
            let part = scratch.file("d.part")
            try Data(expected.bytes).write(to: URL(fileURLWithPath: part))
            let result = try await transport.download(
                server.url(Self.segment), via: nil, to: part, resumeAt: Int64(expected.bytes.count), etag: expected.etag
            ) { _ in }
            #expect(result.length == Int64(expected.bytes.count) && result.received == 0)
        }
    }

    @Test func fetchesAByteRangeAndResumesInsideIt() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try await withOriginAndTransport { server, transport in
            let expected = try #require(server.store.resource(at: Self.segment))
            let range = ByteRange(length: 500, offset: 100)
            let part = scratch.file("r.part")
            let whole = try await transport.download(
                server.url(Self.segment), via: nil, to: part, resumeAt: 0, etag: nil, byteRange: range) { _ in }
            #expect(whole.length == 500 && FileManager.default.contents(atPath: part) == Data(expected.bytes[100..<600]))
            // Keep 200 bytes of it, then resume: only bytes 300..<600 are asked for.
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: part))
            try handle.truncate(atOffset: 200)
            try handle.close()
            let resumed = try await transport.download(
                server.url(Self.segment), via: nil, to: part, resumeAt: 200, etag: expected.etag, byteRange: range) { _ in }
            #expect(resumed.received == 300 && resumed.length == 500)
            #expect(FileManager.default.contents(atPath: part) == Data(expected.bytes[100..<600]))
            let log = try await server.requestLog(count: 2) { $0.path == Self.segment }
            #expect(log.last?.range == "bytes=300-599", "\(log.map(\.range))")
        }
    }

    @Test func errorStatusesAreClassified() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try await withOriginAndTransport({ configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: "/videos/clear/400k/seg2.ts", fault: .status(503, retryAfter: .seconds(7)))
            ])
        }) { server, transport in
            await #expect(throws: TransportError.status(404, retryAfter: nil)) {
                try await transport.download(
                    server.url("/videos/clear/400k/seg999.ts"), via: nil, to: scratch.file("e"), resumeAt: 0, etag: nil) { _ in }
            }
            await #expect(throws: TransportError.status(503, retryAfter: 7)) {
                try await transport.download(
                    server.url("/videos/clear/400k/seg2.ts"), via: nil, to: scratch.file("f"), resumeAt: 0, etag: nil) { _ in }
            }
            #expect(TransportError.status(404, retryAfter: nil).isPermanent)
            #expect(TransportError.status(410, retryAfter: nil).isPermanent)
            #expect(!TransportError.status(503, retryAfter: 7).isPermanent)
            #expect(!TransportError.status(429, retryAfter: nil).isPermanent)
        }
    }

    @Test func aBodyThatStopsIsAStall() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // The stall timeout also runs while the head and the first 500 bytes are on their
        // way: 3 s, so that a loaded machine delivers them first (400 ms did not, with two
        // busy processes beside the suite: 0 bytes, then the stall).
        try await withOriginAndTransport(stallTimeout: .seconds(3), { configuration in
            configuration.faultRules = try! FaultRuleSet(rules: [
                FaultRule(path: Self.segment, fault: .stallBody(afterBytes: 500, duration: nil))
            ])
        }) { server, transport in
            let received = Mutex(0)
            let error = await #expect(throws: TransportError.self) {
                try await transport.download(
                    server.url(Self.segment), via: nil, to: scratch.file("g"), resumeAt: 0, etag: nil
                ) { n in received.withLock { $0 += n } }
            }
            #expect(error == .stalled && error?.isNetwork == true)
            #expect(received.withLock { $0 } == 500)
        }
    }

    @Test func aRefusedConnectionIsUnreachable() async throws {
        let transport = HTTPTransport(configuration: TransportConfiguration(connectTimeout: .seconds(2)))
        defer { Task { try? await transport.shutdown() } }
        // Port 1 on loopback: nothing listens there.
        let error = await #expect(throws: TransportError.self) {
            try await transport.fetch(URL(string: "http://127.0.0.1:1/videos")!, via: nil)
        }
        guard case .unreachable = error else { Issue.record("expected unreachable, got \(String(describing: error))"); return }
        #expect(error?.isNetwork == true && error?.isPermanent == false)
    }

    /// AsyncHTTPClient retries a failed connect by itself (100 ms × 1.25ⁿ, up to a minute,
    /// growing across requests) until the connect timeout: with that on, each request to
    /// a refused port took the whole timeout and made a dozen connects, and after an
    /// outage new requests queued behind a connect still backing off. The engine's own
    /// backoff is the only one: a refused connect fails its request at once.
    @Test func aRefusedConnectFailsTheRequestAtOnceWithNoHiddenRetries() async throws {
        // A client that retried would end each request at the connect timeout, never before
        // it: each request is bounded at half of it. The bound is per request, not for all
        // five, because at the start of the suite hundreds of tests share two cores and each
        // await of a request waits its turn (63 s for five, in a fresh clone, against 60).
        let connectTimeout = Duration.seconds(240)
        let transport = HTTPTransport(configuration: TransportConfiguration(connectTimeout: connectTimeout))
        defer { Task { try? await transport.shutdown() } }
        let port = try RefusingPort()
        defer { port.close() }
        let url = URL(string: "http://127.0.0.1:\(port.port)/videos")!
        for attempt in 0..<5 {
            let started = ContinuousClock.now
            let error = await #expect(throws: TransportError.self) { try await transport.fetch(url, via: nil) }
            guard case .unreachable = error else { Issue.record("expected unreachable, got \(String(describing: error))"); return }
            let took = ContinuousClock.now - started
            #expect(took < connectTimeout / 2, "request \(attempt + 1) took \(took): refused connects were retried toward the connect timeout")
        }
    }

    @Test func requestsGoToTheChosenInterfacesEndpoint() async throws {
        try await withOriginAndTransport { server, transport in
            // The URL names a dead port; the interface's endpoint is the origin.
            let url = URL(string: "http://127.0.0.1:1/videos/clear/master.m3u8")!
            let wifi = PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: "127.0.0.1:\(server.port)")
            let answer = try await transport.fetch(url, via: wifi)
            #expect(answer.status == 200 && answer.body == server.store.resource(at: "/videos/clear/master.m3u8")?.bytes)
        }
        let wifi = PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: "127.0.0.2:9000")
        #expect(HTTPTransport.route(URL(string: "http://origin.example:8080/a/b.ts?x=1")!, via: wifi) == "http://127.0.0.2:9000/a/b.ts?x=1")
        let direct = PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: "")
        #expect(HTTPTransport.route(URL(string: "http://origin.example:8080/a")!, via: direct) == "http://origin.example:8080/a")
    }
}

/// A loopback port that refuses connections: a socket bound to it that does not listen
/// (the kernel answers SYN with RST), so no other test can take the port meanwhile.
struct RefusingPort {
    let fd: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard fd >= 0, bound else { throw TransportError.unreachable("cannot bind a loopback socket: errno \(errno)") }
        self.fd = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    func close() {
        _ = Glibc.close(fd)
    }
}
