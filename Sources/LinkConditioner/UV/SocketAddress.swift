#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address and port, as `host:port` text or a sockaddr.
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port` or `[v6]:port`; nil if it is not one.
    public init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" { host = "127.0.0.1" }
        guard !host.isEmpty else { return nil }
        self.init(host: host, port: port)
        guard isNumeric else { return nil }
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    var isNumeric: Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// The address as a `sockaddr_storage` (IPv4 or IPv6).
    var sockaddr: sockaddr_storage {
        var storage = sockaddr_storage()
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &storage) { dst in
                withUnsafeBytes(of: v4) { dst.copyMemory(from: $0) }
            }
            return storage
        }
        var v6 = sockaddr_in6()
        _ = inet_pton(AF_INET6, host, &v6.sin6_addr)
        v6.sin6_family = sa_family_t(AF_INET6)
        v6.sin6_port = port.bigEndian
        withUnsafeMutableBytes(of: &storage) { dst in
            withUnsafeBytes(of: v6) { dst.copyMemory(from: $0) }
        }
        return storage
    }

    init?(storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let v4 = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            var addr = v4.sin_addr
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            inet_ntop(AF_INET, &addr, &text, socklen_t(text.count))
            self.init(host: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), port: UInt16(bigEndian: v4.sin_port))
        case AF_INET6:
            let v6 = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            var addr = v6.sin6_addr
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count))
            self.init(host: String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), port: UInt16(bigEndian: v6.sin6_port))
        default:
            return nil
        }
    }

    var isIPv6: Bool { host.contains(":") }
}
