import BenchCore
import LinkConditioner
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A proxy's `listen` or `upstream` as the API is given it (`host:port`, `[v6]:port`, a
/// name such as `localhost:6379`), resolved to a numeric address.
enum ProxyAddress {
    /// Resolves `text` (a name is looked up, IPv4 first); `field` names it in the error.
    /// Blocks on the lookup: call it off Swift's cooperative pool.
    static func resolve(_ text: String, field: String) throws(APIError) -> SocketAddress {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw .badRequest("\(field) must be HOST:PORT, e.g. 127.0.0.1:26379 (got \"\(text)\")")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else {
            throw .badRequest("\(field) \"\(text)\" names no host: give one, e.g. 127.0.0.1:\(port) (an empty host would listen on every interface)")
        }
        if let numeric = SocketAddress(parsing: host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)") { return numeric }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, nil, &hints, &found)
        guard code == 0, let first = found else {
            throw .badRequest("\(field) \"\(text)\": the host \(host) could not be resolved (\(String(cString: gai_strerror(code))))")
        }
        defer { freeaddrinfo(first) }
        var candidates: [String] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(current.pointee.ai_addr, current.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                candidates.append(String(cString: buffer))
            }
            entry = current.pointee.ai_next
        }
        guard let chosen = candidates.first(where: { !$0.contains(":") }) ?? candidates.first else {
            throw .badRequest("\(field) \"\(text)\": the host \(host) has no address")
        }
        return SocketAddress(host: chosen, port: port)
    }

    /// Whether `address` is reachable only from this machine (127.0.0.0/8 or ::1).
    static func isLoopback(_ address: SocketAddress) -> Bool {
        address.host.hasPrefix("127.") || address.host == "::1"
    }
}
