/// One host an HTTP forward proxy intercepts (`--intercept HOST[:PORT]`): a CONNECT to it
/// is answered by the intercepting proxy, with a certificate for it minted from the run's
/// CA, and an absolute-form `http://` request for it is recorded the same way. Any other
/// host stays a blind tunnel. A value; matching is pure.
public struct InterceptRule: Sendable, Hashable, CustomStringConvertible {
    /// The host name or address, lowercased (an IPv6 address without its brackets).
    public let host: String
    /// The port; nil matches every port of `host`.
    public let port: UInt16?

    /// Why a `--intercept` value was refused.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What was given.
        public let text: String
        /// What is wrong with it.
        public let reason: String
        public var description: String {
            "--intercept '\(text)': \(reason) (give HOST or HOST:PORT, e.g. cdn.example.com or cdn.example.com:443)"
        }
    }

    /// A rule for `host` (any case) on `port`, or on every port.
    public init(host: String, port: UInt16? = nil) {
        self.host = Self.bare(host).lowercased()
        self.port = port
    }

    /// Reads `HOST`, `HOST:PORT`, `[V6]` or `[V6]:PORT`.
    public init(parsing text: String) throws(ParseError) {
        let trimmed = text.trimmingWhitespace
        guard !trimmed.isEmpty else { throw ParseError(text: text, reason: "no host") }
        guard !trimmed.contains("://") else { throw ParseError(text: text, reason: "a URL, not a host") }
        var host = trimmed, port: UInt16?
        if trimmed.hasPrefix("[") {
            guard let close = trimmed.firstIndex(of: "]") else { throw ParseError(text: text, reason: "an unclosed [") }
            host = String(trimmed[trimmed.index(after: trimmed.startIndex)..<close])
            let rest = trimmed[trimmed.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let value = UInt16(rest.dropFirst()), value > 0 else {
                    throw ParseError(text: text, reason: "the port is not 1…65535")
                }
                port = value
            }
        } else if let colon = trimmed.lastIndex(of: ":") {
            guard trimmed.firstIndex(of: ":") == colon else {
                throw ParseError(text: text, reason: "an IPv6 address needs brackets, as [::1]:443")
            }
            guard let value = UInt16(trimmed[trimmed.index(after: colon)...]), value > 0 else {
                throw ParseError(text: text, reason: "the port is not 1…65535")
            }
            host = String(trimmed[..<colon])
            port = value
        }
        guard !host.isEmpty, !host.contains(where: { " /?#@".contains($0) }) else {
            throw ParseError(text: text, reason: "'\(host)' is not a host name or address")
        }
        self.init(host: host, port: port)
    }

    /// Whether a request for `host` on `port` is this rule's.
    public func matches(host: String, port: UInt16) -> Bool {
        Self.bare(host).lowercased() == self.host && (self.port == nil || self.port == port)
    }

    /// `HOST` or `HOST:PORT`, IPv6 in brackets.
    public var description: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(name):\($0)" } ?? name
    }

    /// `host` without the brackets of an IPv6 address.
    private static func bare(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }
}

extension Array where Element == InterceptRule {
    /// Whether any rule intercepts `host` on `port`.
    public func intercepts(host: String, port: UInt16) -> Bool {
        contains { $0.matches(host: host, port: port) }
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
