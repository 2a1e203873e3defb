/// The `host:port` of a CONNECT target or of a URL's authority, as a forward proxy reads
/// it. Pure.
public enum HostPort {
    /// `host:port` split, with a port in 1…65535 (a `[v6]` host keeps its brackets); nil
    /// otherwise (no port, a bad port, an IPv6 host without brackets, a space).
    public static func split(_ text: String) -> (host: String, port: UInt16)? {
        guard let colon = text.lastIndex(of: ":"), colon != text.startIndex,
              let port = UInt16(text[text.index(after: colon)...]), port > 0
        else { return nil }
        let host = String(text[..<colon])
        if host.hasPrefix("[") { return host.hasSuffix("]") && host.count > 2 ? (host, port) : nil }
        guard !host.contains(":"), !host.contains(" ") else { return nil }
        return (host, port)
    }
}
