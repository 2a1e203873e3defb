/// Tells, from the first bytes an app sends on a connection, an HTTP `CONNECT` request
/// (a client using the interface as its forward proxy, RFC 9110 §9.3.6) from anything
/// else, which is forwarded as it was read. A value: `ProxyConnection` feeds it each read
/// until it decides, holding the reads meanwhile.
///
/// Only a connection whose first bytes are `CONNECT ` is held past its first read (or
/// one whose first read is shorter than that and a prefix of it); every other one is
/// decided at once, so a plain HTTP request or a TLS handshake pays nothing.
struct ConnectSniffer {
    /// What the bytes fed so far are.
    enum Outcome: Equatable {
        /// A prefix of a CONNECT request head, or of `CONNECT ` itself: read on.
        case undecided
        /// Not a CONNECT request: forward everything held, as read.
        case passThrough
        /// A CONNECT request for `target` (`host:port`), whose head ends `headBytesOfLast`
        /// bytes into the last read fed: the rest of that read is the tunnel's first bytes.
        case tunnel(target: String, headBytesOfLast: Int)
        /// A CONNECT request the proxy cannot take (why, for the app's 400 and the trace).
        case malformed(String)
    }

    /// The longest CONNECT request head read before it is refused.
    static let maximumHead = 8 * 1024
    private static let method = Array("CONNECT ".utf8)
    private static let headEnd = Array("\r\n\r\n".utf8)

    private var held: [UInt8] = []
    private(set) var outcome = Outcome.undecided

    /// Feeds the next read; the outcome once decided (and the same on every later call).
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        guard outcome == .undecided else { return outcome }
        let before = held.count
        held.append(contentsOf: bytes)
        outcome = decide(before: before)
        if outcome != .undecided { held = [] }
        return outcome
    }

    private func decide(before: Int) -> Outcome {
        let method = Self.method
        guard held.count >= method.count else {
            return held.elementsEqual(method.prefix(held.count)) ? .undecided : .passThrough
        }
        guard held.starts(with: method) else { return .passThrough }
        guard let end = Self.firstIndex(of: Self.headEnd, in: held, from: max(0, before - Self.headEnd.count + 1)) else {
            return held.count > Self.maximumHead
                ? .malformed("a CONNECT request head longer than \(Self.maximumHead) bytes") : .undecided
        }
        let headLength = end + Self.headEnd.count
        guard headLength <= Self.maximumHead else {
            return .malformed("a CONNECT request head longer than \(Self.maximumHead) bytes")
        }
        let lineEnd = Self.firstIndex(of: Array("\r\n".utf8), in: held, from: 0) ?? end
        let line = String(decoding: held[..<lineEnd], as: UTF8.self)
        let parts = line.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else {
            return .malformed("a CONNECT request line that is not `CONNECT host:port HTTP/1.1`: \(line.prefix(200))")
        }
        let target = String(parts[1])
        guard let colon = target.lastIndex(of: ":"), colon != target.startIndex,
              let port = Int(target[target.index(after: colon)...]), (1...65535).contains(port)
        else {
            return .malformed("a CONNECT target that is not host:port: \(target.prefix(200))")
        }
        return .tunnel(target: target, headBytesOfLast: headLength - before)
    }

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
