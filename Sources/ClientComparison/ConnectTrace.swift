/// The connection attempts a client made, read from `strace -f -ttt -e trace=connect`.
///
/// Each `connect()` to an IPv4 address is one attempt, whatever its result (a
/// non-blocking connect reports `EINPROGRESS`; a refused one may fail at once or later).
/// Pure parsing; reading the file is the caller's.
public enum ConnectTrace {
    /// One `connect()` call.
    public struct Attempt: Sendable, Equatable, Codable {
        /// Wall-clock seconds since 1970 (strace's `-ttt`).
        public var wallSeconds: Double
        public var host: String
        public var port: Int
    }

    /// The IPv4 connect attempts in strace's output; other lines (Unix sockets, exits,
    /// unfinished/resumed halves of one call) are skipped, each call counted once.
    public static func attempts(in text: String) -> [Attempt] {
        var attempts: [Attempt] = []
        for line in text.split(separator: "\n") {
            guard line.contains("connect("), line.contains("sa_family=AF_INET,"), !line.contains("resumed>") else {
                continue
            }
            let words = line.split(separator: " ", maxSplits: 2)
            // "<pid> <seconds> connect(…)" with -f; "<seconds> connect(…)" for a single process;
            // the seconds are the word with a decimal point.
            guard let seconds = words.lazy.filter({ $0.contains(".") }).compactMap({ Double($0) }).first,
                let port = value(in: line, after: "sin_port=htons(", until: ")").flatMap({ Int($0) }),
                let host = value(in: line, after: "sin_addr=inet_addr(\"", until: "\"")
            else { continue }
            attempts.append(Attempt(wallSeconds: seconds, host: host, port: port))
        }
        return attempts
    }

    private static func value(in line: Substring, after start: String, until end: Character) -> String? {
        guard let range = line.range(of: start) else { return nil }
        let rest = line[range.upperBound...]
        guard let close = rest.firstIndex(of: end) else { return nil }
        return String(rest[..<close])
    }
}
