/// A PROXY protocol v1 header, as the link conditioner sends it upstream before the
/// client's bytes (HAProxy PROXY protocol spec §2.1):
/// `PROXY TCP4|TCP6 src dst sport dport\r\n` or `PROXY UNKNOWN[ anything]\r\n`,
/// at most 107 bytes with the CRLF.
///
/// A value; `parse` is pure and is called by `ProxyProtocolDecoder` on the event loop.
public struct ProxyHeader: Sendable, Hashable {
    /// Longest header line the spec allows, CRLF included.
    public static let maximumLength = 107
    /// The first six bytes of every v1 header.
    public static let signature = Array("PROXY ".utf8)

    /// `TCP4`, `TCP6` or `UNKNOWN`.
    public enum Family: String, Sendable, Hashable {
        case tcp4 = "TCP4", tcp6 = "TCP6", unknown = "UNKNOWN"
    }

    /// The address family.
    public var family: Family
    /// Source (client) address and port; nil for `UNKNOWN`.
    public var source: Endpoint?
    /// Destination (the proxy's listener) address and port; nil for `UNKNOWN`.
    public var destination: Endpoint?

    /// One address and port as the header wrote them.
    public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
        /// The address text, e.g. `127.0.0.1` or `::1`.
        public var address: String
        /// The port, 0…65535.
        public var port: Int
        /// `host:port`, with brackets around an IPv6 address (`[::1]:8080`).
        public var description: String {
            address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
        }
    }

    /// Why a header was refused.
    public enum ParseError: Error, Sendable, Hashable {
        /// No CRLF within `maximumLength` bytes.
        case tooLong
        /// The line does not have the v1 grammar (wrong family, field count, address or port).
        case malformed
    }

    /// Parses one header line, `line` being everything before the CRLF (signature included).
    public static func parse(line: some Collection<UInt8>) throws(ParseError) -> ProxyHeader {
        guard line.count + 2 <= maximumLength else { throw .tooLong }
        guard line.starts(with: signature), let text = String(validating: Array(line), as: UTF8.self) else {
            throw .malformed
        }
        let fields = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 2, let family = Family(rawValue: fields[1]) else { throw .malformed }
        if family == .unknown { return ProxyHeader(family: .unknown, source: nil, destination: nil) }
        guard fields.count == 6,
            let source = endpoint(fields[2], fields[4], family), let destination = endpoint(fields[3], fields[5], family)
        else { throw .malformed }
        return ProxyHeader(family: family, source: source, destination: destination)
    }

    private static func endpoint(_ address: String, _ port: String, _ family: Family) -> Endpoint? {
        guard !port.isEmpty, port.count <= 5, port.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
            let number = Int(port), number <= 65535,
            family == .tcp4 ? isIPv4(address) : isIPv6(address)
        else { return nil }
        return Endpoint(address: address, port: number)
    }

    private static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.utf8.allSatisfy { (0x30...0x39).contains($0) } && Int(part)! <= 255
        }
    }

    /// Hex digits, colons and (for an embedded IPv4 tail) dots; at least one colon.
    private static func isIPv6(_ text: String) -> Bool {
        text.contains(":") && text.count <= 45
            && text.utf8.allSatisfy { $0 == 0x3A || $0 == 0x2E || ($0 < 128 && Character(UnicodeScalar($0)).isHexDigit) }
    }
}
