@testable import LinkConditioner
import Testing

/// The first bytes of a connection tell a CONNECT request from anything else: a plain
/// request or a TLS handshake passes at its first read, a CONNECT head is held until it
/// ends (however it is split), and one the proxy cannot take is refused with why.
@Suite struct ConnectSnifferTests {
    /// Feeds `reads` in order; the outcome after each.
    func outcomes(_ reads: [String]) -> [ConnectSniffer.Outcome] {
        var sniffer = ConnectSniffer()
        return reads.map { read in Array(read.utf8).withUnsafeBytes { sniffer.feed($0) } }
    }

    @Test func anythingButConnectPassesAtItsFirstRead() {
        #expect(outcomes(["GET /videos/clear/master.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n"]) == [.passThrough])
        #expect(outcomes(["\u{16}\u{03}\u{01}"]) == [.passThrough], "a TLS ClientHello")
        #expect(outcomes(["CONNECTION: x\r\n"]) == [.passThrough], "starts like CONNECT but is not `CONNECT `")
        #expect(outcomes(["CON", "NECT", "ED"]) == [.undecided, .undecided, .passThrough])
    }

    @Test func aConnectHeadIsHeldUntilItEndsAndTheRestIsTheTunnels() {
        let head = "CONNECT 127.0.0.1:8080 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"
        #expect(outcomes([head]) == [.tunnel(target: "127.0.0.1:8080", headBytesOfLast: head.utf8.count)])
        // Split anywhere, even inside the blank line, with the tunnel's first bytes after it.
        let bytes = Array(head.utf8), split = bytes.count - 3
        var sniffer = ConnectSniffer()
        let reads = [Array(bytes[..<4]), Array(bytes[4..<split]), Array(bytes[split...]) + Array("GET / HTTP/1.1\r\n".utf8)]
        #expect(reads.map { read in read.withUnsafeBytes { sniffer.feed($0) } }
            == [.undecided, .undecided, .tunnel(target: "127.0.0.1:8080", headBytesOfLast: 3)])
        // Decided once: later reads change nothing.
        #expect(outcomes([head, "more"]).last == .tunnel(target: "127.0.0.1:8080", headBytesOfLast: head.utf8.count))
    }

    @Test func aConnectTheProxyCannotTakeIsMalformedWithWhy() {
        func why(_ reads: [String]) -> String {
            guard case .malformed(let why) = outcomes(reads).last else { return "not malformed" }
            return why
        }
        #expect(why(["CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n"]).contains("not host:port"))
        #expect(why(["CONNECT 127.0.0.1:0 HTTP/1.1\r\n\r\n"]).contains("not host:port"))
        #expect(why(["CONNECT 127.0.0.1:80\r\n\r\n"]).contains("not `METHOD target HTTP/1.1`"))
        #expect(why(["CONNECT 127.0.0.1:80 SPDY/3\r\n\r\n"]).contains("not `METHOD target HTTP/1.1`"))
        let long = "CONNECT 127.0.0.1:80 HTTP/1.1\r\n" + String(repeating: "X-Padding: 0123456789\r\n", count: 400)
        #expect(why([long]).contains("longer than 8192 bytes"))
        #expect(outcomes([String(long.prefix(4000))]) == [.undecided], "a long head is read on up to the limit")
    }

    /// A forward proxy for any host reads every first request whole: CONNECT names a
    /// tunnel, an absolute-form http:// URL names the host it is forwarded to in
    /// origin-form with `Connection: close` (hop-by-hop headers dropped), anything else is refused.
    @Test func aProxyForAnyHostReadsTheFirstRequestAndRewritesItForItsOrigin() {
        func feed(_ reads: [String]) -> [ConnectSniffer.Outcome] {
            var sniffer = ConnectSniffer(mode: .anyHost)
            return reads.map { read in Array(read.utf8).withUnsafeBytes { sniffer.feed($0) } }
        }
        let request = "GET http://media.example:8080/videos/a.m3u8?x=1 HTTP/1.1\r\nHost: media.example:8080\r\n"
            + "Proxy-Connection: keep-alive\r\nAccept: */*\r\n\r\n"
        let rewritten = "GET /videos/a.m3u8?x=1 HTTP/1.1\r\nHost: media.example:8080\r\nAccept: */*\r\nConnection: close\r\n\r\n"
        #expect(feed(["GET http://media.ex", String(request.dropFirst(19)) + "body"])
            == [.undecided, .request(target: "media.example:8080", head: Array(rewritten.utf8),
                                     headBytesOfLast: request.utf8.count - 19)])
        let plain = "GET http://media.example HTTP/1.1\r\nHost: media.example\r\n\r\n"
        #expect(feed([plain]) == [.request(
            target: "media.example:80", head: Array("GET / HTTP/1.1\r\nHost: media.example\r\nConnection: close\r\n\r\n".utf8),
            headBytesOfLast: plain.utf8.count)])
        #expect(feed(["CONNECT media.example:443 HTTP/1.1\r\nHost: media.example:443\r\n\r\n\u{16}\u{03}"])
            == [.tunnel(target: "media.example:443", headBytesOfLast: 63)])
        func why(_ read: String) -> String {
            guard case .malformed(let why) = feed([read]).last else { return "not malformed" }
            return why
        }
        #expect(why("GET /videos/a.m3u8 HTTP/1.1\r\nHost: x\r\n\r\n").contains("set it as the client's HTTP proxy"))
        #expect(why("GET https://media.example/ HTTP/1.1\r\n\r\n").contains("CONNECT host:443"))
        #expect(why("GET http://:80/ HTTP/1.1\r\n\r\n").contains("not host[:port]"))
        #expect(ConnectSniffer.authority("[::1]:8443")! == ("[::1]", 8443))
        #expect(ConnectSniffer.authority("::1:80") == nil, "an IPv6 host needs its brackets")
    }

    /// What an intercepting proxy is sent: the head as the app wrote it, however it was
    /// split, not the rewritten one (it answers the CONNECT, or reads the absolute form).
    @Test func theHeadAsTheAppSentItIsKeptForAnInterceptingProxy() {
        var sniffer = ConnectSniffer(mode: .anyHost)
        let connect = "CONNECT cdn.example:443 HTTP/1.1\r\nHost: cdn.example:443\r\n\r\n"
        let reads = [String(connect.prefix(10)), String(connect.dropFirst(10)) + "\u{16}\u{03}"]
        _ = reads.map { read in Array(read.utf8).withUnsafeBytes { sniffer.feed($0) } }
        #expect(sniffer.head == Array(connect.utf8))
        var plain = ConnectSniffer(mode: .anyHost)
        let request = "GET http://cdn.example/a.m3u8 HTTP/1.1\r\nProxy-Connection: keep-alive\r\n\r\n"
        _ = Array((request + "body").utf8).withUnsafeBytes { plain.feed($0) }
        #expect(plain.head == Array(request.utf8), "the absolute form and its hop-by-hop headers as sent")
        var undecided = ConnectSniffer(mode: .anyHost)
        _ = Array("GET http://cdn".utf8).withUnsafeBytes { undecided.feed($0) }
        #expect(undecided.head.isEmpty, "no head before it has ended")
    }

    /// A fixed upstream whose run intercepts hosts: what cannot be a request for one (TLS,
    /// an origin-form request) passes as soon as its first byte or line says so; a CONNECT
    /// and an absolute-form request are read whole, for the connection to route.
    @Test func aFixedUpstreamThatInterceptsPassesWhatIsNotAProxysRequestAtItsFirstLine() {
        func feed(_ reads: [String]) -> [ConnectSniffer.Outcome] {
            var sniffer = ConnectSniffer(mode: .upstreamFixedIntercepting)
            return reads.map { read in Array(read.utf8).withUnsafeBytes { sniffer.feed($0) } }
        }
        #expect(feed(["\u{16}\u{03}\u{01}"]) == [.passThrough], "a TLS ClientHello")
        #expect(feed(["GET /videos/clear/master.m3u8 HTTP/1.1\r\nHost: x\r\n"]) == [.passThrough])
        #expect(feed(["GET /videos/cl", "ear/master.m3u8 HTTP/1.1\r\n"]) == [.undecided, .passThrough])
        let absolute = "GET http://cdn.example/a.m3u8 HTTP/1.1\r\nHost: cdn.example\r\n\r\n"
        guard case .request(let target, _, _)? = feed([String(absolute.prefix(30)), String(absolute.dropFirst(30))]).last else {
            Issue.record("an absolute-form request was not read whole")
            return
        }
        #expect(target == "cdn.example:80")
        #expect(feed(["CONNECT cdn.example:443 HTTP/1.1\r\n\r\n"]) == [.tunnel(target: "cdn.example:443", headBytesOfLast: 36)])
    }
}
