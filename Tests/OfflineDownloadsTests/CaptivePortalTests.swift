import BenchCore
import FixtureOrigin
import Foundation
import HLSPlaylist
import NIOHTTP1
import Synchronization
import Testing

@testable import OfflineDownloads

/// The captive-portal rule (`CaptivePortal`): what counts as a portal's answer, what the
/// transport does with one (nothing written, `.captivePortal` thrown), and what a
/// transfer ending on one becomes (a network suspension, with an event).
@Suite(.timeLimit(.minutes(2))) struct CaptivePortalTests {
    static let portal = HTTPFault.captivePortal

    @Test func aWebPageIsAPortalsContentTypeAndNothingElseIs() {
        for type in ["text/html", "text/html; charset=utf-8", "TEXT/HTML;charset=UTF-8", " text/html ", "application/xhtml+xml",
            "Application/XHTML+XML; charset=utf-8"]
        {
            #expect(CaptivePortal.isWebPage(contentType: type), "\(type)")
        }
        for type: String? in [nil, "", "video/mp2t", "application/vnd.apple.mpegurl", "audio/mpegurl", "application/json",
            "text/plain", "text/vtt", "image/png", "application/octet-stream", "text/htmlx", "text/xml"]
        {
            #expect(!CaptivePortal.isWebPage(contentType: type), "\(type ?? "nil")")
        }
    }

    @Test func aPortalIsA511OrA2xxWebPage() {
        let html: HTTPHeaders = ["Content-Type": "text/html; charset=utf-8"]
        let media: HTTPHeaders = ["Content-Type": "video/mp2t"]
        #expect(CaptivePortal.check(status: 200, headers: html, for: "GET /a.ts") != nil)
        #expect(CaptivePortal.check(status: 206, headers: html, for: "GET /a.ts") != nil)
        #expect(CaptivePortal.check(status: 511, headers: [:], for: "GET /a.ts") != nil)
        #expect(CaptivePortal.check(status: 511, headers: media, for: "GET /a.ts") != nil)
        // An error page in HTML is the origin's error, judged by its status as before.
        #expect(CaptivePortal.check(status: 404, headers: html, for: "GET /a.ts") == nil)
        #expect(CaptivePortal.check(status: 503, headers: html, for: "GET /a.ts") == nil)
        #expect(CaptivePortal.check(status: 200, headers: media, for: "GET /a.ts") == nil)
        #expect(CaptivePortal.check(status: 200, headers: [:], for: "GET /a.ts") == nil)
        guard case .captivePortal(let why)? = CaptivePortal.check(status: 200, headers: html, for: "GET /a.ts") else {
            Issue.record("expected a captive portal")
            return
        }
        #expect(why.contains("GET /a.ts") && why.contains("text/html"))
    }

    @Test func aPlaylistStartsWithTheHeaderAfterAByteOrderMarkAndWhitespace() {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let playlists: [[UInt8]] = [
            Array("#EXTM3U\n#EXT-X-VERSION:3\n".utf8), bom + Array("#EXTM3U\n".utf8), Array(" \t\r\n\n#EXTM3U\r\n".utf8),
            bom + Array("\n  #EXTM3U".utf8), Array("#EXTM3U".utf8),
            // Only the header's presence is the portal check's business; the parser refuses this one.
            Array("#EXTM3U8\n#EXTINF:\n".utf8),
        ]
        for body in playlists {
            #expect(CaptivePortal.isPlaylistText(body), "\(String(decoding: body, as: UTF8.self))")
            #expect(CaptivePortal.checkPlaylist(body, for: "GET /p.m3u8") == nil)
        }
        let pages: [[UInt8]] = [
            Array(HTTPFault.captivePortalPage.utf8), [], bom, Array("   \n".utf8), Array("EXTM3U\n".utf8),
            Array("#extm3u\n".utf8), Array("#EXT-X-VERSION:3\n#EXTM3U\n".utf8), Array("{\"id\": \"clear\"}".utf8),
            Array("x#EXTM3U".utf8), [0xFE, 0xFF] + Array("#EXTM3U".utf8),
        ]
        for body in pages {
            #expect(!CaptivePortal.isPlaylistText(body), "\(String(decoding: body, as: UTF8.self))")
            guard case .captivePortal(let why)? = CaptivePortal.checkPlaylist(body, for: "GET /p.m3u8") else {
                Issue.record("expected a captive portal for \(String(decoding: body, as: UTF8.self))")
                continue
            }
            #expect(why.contains("GET /p.m3u8") && why.contains("#EXTM3U"))
        }
    }

    @Test func aPortalIsANetworkFailureNeverAPermanentOne() {
        let error = TransportError.captivePortal("GET /a.ts answered 200 with a web page")
        #expect(error.isNetwork && !error.isPermanent)
        #expect(error.description.contains("captive portal"))
    }

    /// A transfer ending on a portal suspends for the network, counted as a network
    /// failure (retried without bound), and says why in an `error` event.
    @Test func aTransferEndingOnAPortalSuspendsForTheNetworkWithAnEvent() throws {
        var entry = try TransferReportTests.downloading()
        let why = "GET /videos/clear/400k/seg3.ts answered 200 with a web page (text/html)"
        let (steps, actions) = try TransferReportTests.drive(&entry, [.failed(.transport(.captivePortal(why)))])
        #expect(steps == [.feed(.stalled, events: [.error(entry.token, message: DownloadEntry.portalMessage(why))])])
        #expect(entry.machine.state == .suspended(.network))
        #expect(actions.last == .scheduleRetry)
        #expect(entry.nextRetryKind == .network)
    }

    /// A license exchange the network let down (a portal's page instead of the license)
    /// is retried like an outage; any other passing failure stays bounded.
    @Test func aLicenseExchangeTheNetworkLetDownRetriesLikeAnOutage() throws {
        var network = try TransferReportTests.downloading()
        _ = try TransferReportTests.drive(&network, [.failed(.license("captive portal", network: true))])
        #expect(network.machine.state == .suspended(.network) && network.nextRetryKind == .network)
        var server = try TransferReportTests.downloading()
        _ = try TransferReportTests.drive(&server, [.failed(.license("HTTP 503"))])
        #expect(server.machine.state == .suspended(.network) && server.nextRetryKind == .other)
    }

    // MARK: The transport against the origin

    @Test func aPortalAnswerIsNeverWrittenAndThePartKeepsItsBytes() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try await withOriginAndTransport { server, transport in
            let path = HTTPTransportTests.segment
            let expected = try #require(server.store.resource(at: path))
            server.setFaultRules(try FaultRuleSet(rules: [FaultRule(id: "portal", path: path, fault: Self.portal)]))
            let part = scratch.file("p.part")
            let kept = Data(expected.bytes.prefix(1000))
            try kept.write(to: URL(fileURLWithPath: part))
            let responded = Mutex(false)
            let written = Mutex(0)
            // A resume (Range) and a byte range: a portal answers 200 to both.
            for (resumeAt, range): (Int64, ByteRange?) in [(1000, nil), (0, ByteRange(length: 500, offset: 1000))] {
                let error = await #expect(throws: TransportError.self) {
                    _ = try await transport.download(
                        server.url(path), via: nil, to: part, resumeAt: resumeAt, etag: expected.etag, byteRange: range,
                        responded: { _, _ in responded.withLock { $0 = true } }
                    ) { n in written.withLock { $0 += n } }
                }
                guard case .captivePortal? = error else {
                    Issue.record("expected a captive portal, got \(String(describing: error))")
                    continue
                }
            }
            #expect(FileManager.default.contents(atPath: part) == kept, "the .part keeps what it had")
            #expect(!responded.withLock { $0 } && written.withLock { $0 } == 0)
            #expect(server.faultRules.fired["portal"] == 2)
        }
    }

    @Test func fetchThrowsOnAPortalsPageAndOnA511() async throws {
        try await withOriginAndTransport { server, transport in
            server.setFaultRules(try FaultRuleSet(rules: [
                FaultRule(id: "portal", path: "/videos/clear/master.m3u8", fault: Self.portal),
                FaultRule(id: "511", path: "/videos/clear/400k/index.m3u8", fault: .status(511, retryAfter: nil)),
            ]))
            for path in ["/videos/clear/master.m3u8", "/videos/clear/400k/index.m3u8"] {
                let error = await #expect(throws: TransportError.self) { _ = try await transport.fetch(server.url(path), via: nil) }
                guard case .captivePortal? = error else {
                    Issue.record("\(path): expected a captive portal, got \(String(describing: error))")
                    continue
                }
            }
            // Any other answer is still the caller's to judge: the license server's own
            // refusal (JSON) of a request that is not one, a segment with no rule on it.
            let refusal = try await transport.fetch(server.url("/license"), via: nil, method: .POST, body: Array("{}".utf8))
            #expect((400..<500).contains(refusal.status))
            let segment = try await transport.fetch(server.url("/videos/clear/400k/seg0.ts"), via: nil)
            #expect(segment.status == 200 && !segment.body.isEmpty)
        }
    }

    /// A playlist URL that answers something else than a playlist, labelled or not as a
    /// web page, stops the plan with the network failure, not a playlist failure.
    @Test func thePlannerTakesANonPlaylistForAPortal() async throws {
        try await withOriginAndTransport { server, transport in
            // The catalog entry (JSON) where the master playlist should be.
            let planner = OfflinePlanner(
                transport: transport, interface: PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: ""),
                token: "t", masterURL: server.url("/videos/clear").absoluteString, requestedBitrate: nil, audioLanguages: [],
                subtitleLanguages: [])
            let failure = await Self.failure(of: planner)
            guard case .transport(.captivePortal(let why))? = failure else {
                Issue.record("expected a captive portal, got \(String(describing: failure))")
                return
            }
            #expect(why.contains("/videos/clear") && why.contains("#EXTM3U"))
        }
    }

    /// Why `planner` cannot plan, or nil when it can.
    static func failure(of planner: OfflinePlanner) async -> TransferFailure? {
        do throws(TransferFailure) {
            _ = try await planner.plan()
            return nil
        } catch {
            return error
        }
    }
}
