import BenchCore

/// Reads the first request an app sends on a connection to an interface used as its
/// forward proxy. A value: `ProxyConnection` feeds it each read until it decides.
///
/// `.upstreamFixed` (the harness's interfaces, and `bench proxy --upstream`): every
/// connection goes to the one upstream, so only a CONNECT request (RFC 9110 §9.3.6) is
/// the proxy's to answer; anything else is forwarded as read. Only a connection whose
/// first bytes are `CONNECT ` (or a shorter prefix of it) is held past its first read, so
/// a plain request or a TLS handshake pays nothing.
///
/// `.anyHost` (`bench proxy --http-proxy`): the first request names the upstream. A
/// CONNECT opens a tunnel to its `host:port`; an absolute-form request
/// (`GET http://host:port/path HTTP/1.1`) is forwarded to its host in origin-form with
/// `Connection: close`, so that the client's next request, whatever its host, comes on a
/// new connection (RFC 9112 §3.2.1, §9.6); anything else is malformed.
struct ConnectSniffer {
    /// Which requests the proxy answers itself.
    enum Mode: Equatable {
        case upstreamFixed
        case anyHost
        /// A fixed upstream whose run intercepts some hosts (`ConditionerConfiguration.interception`):
        /// a CONNECT is read whole as with `.upstreamFixed`, and so is an absolute-form
        /// `http://` request (`.request`: the connection tells whether its host is
        /// intercepted); anything else passes as soon as its first line (or first byte, for
        /// what is not a request line: TLS) says so.
        case upstreamFixedIntercepting
    }

    /// What the bytes fed so far are.
    enum Outcome: Equatable {
        /// A prefix of a request head the proxy must read whole: read on.
        case undecided
        /// Not the proxy's: forward everything held, as read (`.upstreamFixed` only).
        case passThrough
        /// A CONNECT request for `target` (`host:port`), whose head ends `headBytesOfLast`
        /// bytes into the last read fed: the rest of that read is the tunnel's first bytes.
        case tunnel(target: String, headBytesOfLast: Int)
        /// An absolute-form request for `target` (`host:port`, `.anyHost` only): `head` is
        /// what to send upstream instead of its head, which ends `headBytesOfLast` bytes
        /// into the last read fed (the rest of that read is its body's first bytes).
        case request(target: String, head: [UInt8], headBytesOfLast: Int)
        /// A request the proxy cannot take (why, for the app's 400 and the trace).
        case malformed(String)
    }

    /// The longest request head read before it is refused.
    static let maximumHead = 8 * 1024
    private static let connect = Array("CONNECT ".utf8)
    private static let headEnd = Array("\r\n\r\n".utf8)
    /// Headers that concern the hop to the proxy, not the one to the origin (RFC 9110 §7.6.1).
    private static let hopByHop: Set<String> = ["connection", "proxy-connection", "keep-alive", "proxy-authorization"]

    let mode: Mode
    private var held: [UInt8] = []
    private(set) var outcome = Outcome.undecided
    /// The request head as the app sent it, once a `.tunnel` or `.request` is decided:
    /// what an intercepting proxy is sent instead of the rewritten head.
    private(set) var head: [UInt8] = []

    /// A sniffer for `mode` (`.upstreamFixed` by default).
    init(mode: Mode = .upstreamFixed) {
        self.mode = mode
    }

    /// Feeds the next read; the outcome once decided (and the same on every later call).
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        guard outcome == .undecided else { return outcome }
        // The common case decided without copying the read: a first read that does not
        // begin like `CONNECT ` on a fixed upstream.
        if mode == .upstreamFixed, held.isEmpty, !bytes.prefix(Self.connect.count).elementsEqual(Self.connect.prefix(bytes.count)) {
            outcome = .passThrough
            return outcome
        }
        let before = held.count
        held.append(contentsOf: bytes)
        outcome = decide(before: before)
        switch outcome {
        case let .tunnel(_, rest), let .request(_, _, rest): head = Array(held[..<(before + rest)])
        default: break
        }
        if outcome != .undecided { held = [] }
        return outcome
    }

    private func decide(before: Int) -> Outcome {
        if mode == .upstreamFixedIntercepting, !Self.mayBeConnect(held) {
            if let early = Self.notAbsoluteForm(held) { return early }
        }
        if mode == .upstreamFixed {
            let method = Self.connect
            guard held.count >= method.count else {
                return held.elementsEqual(method.prefix(held.count)) ? .undecided : .passThrough
            }
            guard held.starts(with: method) else { return .passThrough }
        }
        guard let end = Self.firstIndex(of: Self.headEnd, in: held, from: max(0, before - Self.headEnd.count + 1)) else {
            return held.count > Self.maximumHead ? .malformed("a request head longer than \(Self.maximumHead) bytes") : .undecided
        }
        let headLength = end + Self.headEnd.count
        guard headLength <= Self.maximumHead else { return .malformed("a request head longer than \(Self.maximumHead) bytes") }
        let lines = String(decoding: held[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else {
            return .malformed("a request line that is not `METHOD target HTTP/1.1`: \(lines[0].prefix(200))")
        }
        let rest = headLength - before
        if parts[0] == "CONNECT" {
            let target = String(parts[1])
            guard Self.authority(target) != nil else {
                return .malformed("a CONNECT target that is not host:port: \(target.prefix(200))")
            }
            return .tunnel(target: target, headBytesOfLast: rest)
        }
        return forwarded(method: String(parts[0]), uri: String(parts[1]), version: String(parts[2]),
                         headers: lines.dropFirst(), headBytesOfLast: rest)
    }

    /// Whether `held` is `CONNECT ` or a prefix of it, or starts with it.
    private static func mayBeConnect(_ held: [UInt8]) -> Bool {
        held.count >= connect.count ? held.starts(with: connect) : held.elementsEqual(connect.prefix(held.count))
    }

    /// `.upstreamFixedIntercepting`, for what is not a CONNECT: `.passThrough` once the
    /// bytes cannot begin an absolute-form `http://` request (not a request line, or a
    /// request line whose target is not one), `.undecided` until the first line has
    /// ended, nil for an absolute-form request (read on, as for any host).
    private static func notAbsoluteForm(_ held: [UInt8]) -> Outcome? {
        guard let first = held.first, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first) else { return .passThrough }
        guard let lineEnd = firstIndex(of: [13, 10], in: held, from: 0) else {
            return held.count > maximumHead ? .passThrough : .undecided
        }
        let parts = String(decoding: held[..<lineEnd], as: UTF8.self).split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].lowercased().hasPrefix("http://") else { return .passThrough }
        return nil
    }

    /// An absolute-form `http://` request, rewritten for its origin.
    private func forwarded(
        method: String, uri: String, version: String, headers: ArraySlice<String>, headBytesOfLast: Int
    ) -> Outcome {
        guard uri.lowercased().hasPrefix("http://") else {
            let why = uri.lowercased().hasPrefix("https://")
                ? "an https:// URL in a plain request (this proxy tunnels HTTPS: CONNECT host:443)"
                : "a request for \(uri.prefix(200)) (this is a forward proxy: set it as the client's HTTP proxy, which "
                    + "sends absolute-form http:// URLs, or CONNECT host:port)"
            return .malformed(why)
        }
        let afterScheme = uri.dropFirst("http://".count)
        let pathStart = afterScheme.firstIndex { $0 == "/" || $0 == "?" } ?? afterScheme.endIndex
        var hostPort = String(afterScheme[..<pathStart])
        if let at = hostPort.lastIndex(of: "@") { hostPort = String(hostPort[hostPort.index(after: at)...]) }
        if Self.authority(hostPort) == nil { hostPort += ":80" }
        guard Self.authority(hostPort) != nil else { return .malformed("a URL whose host is not host[:port]: \(uri.prefix(200))") }
        var path = String(afterScheme[pathStart...])
        if path.isEmpty || path.hasPrefix("?") { path = "/" + path }
        var head = "\(method) \(path) \(version)\r\n"
        for header in headers where !Self.hopByHop.contains(header.prefix { $0 != ":" }.lowercased()) {
            head += header + "\r\n"
        }
        head += "Connection: close\r\n\r\n"
        return .request(target: hostPort, head: Array(head.utf8), headBytesOfLast: headBytesOfLast)
    }

    /// `host:port` split, with a port in 1…65535 (a `[v6]` host keeps its brackets); nil otherwise.
    static func authority(_ text: String) -> (host: String, port: UInt16)? { HostPort.split(text) }

    /// Where `needle` first occurs in `haystack` at or after `start`.
    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        for index in start...(haystack.count - needle.count)
        where haystack[index] == needle[0] && haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }
}
