/// A glob over URL paths, e.g. `/videos/*/480p/seg*.ts` or `/videos/**/*.m3u8`.
///
/// - `*` matches any run of characters except `/` (possibly empty);
/// - `**` matches any run of characters including `/`; written as a whole path
///   component followed by `/` (`/a/**/b`), it also matches no component at all, so
///   `/a/**/b` matches `/a/b`, `/a/x/b` and `/a/x/y/b`;
/// - `?` matches exactly one character other than `/`;
/// - every other character matches itself (case-sensitive, byte for byte);
/// - a whole pattern written `{A,B,…}` matches what any of the globs A, B… matches
///   (alternatives of the whole path only, not nested: `--video` writes the paths of a
///   recording that way, `VideoSubstitution`).
///
/// The whole path must match. A query string is not part of the path: strip it first
/// (`FaultRuleSet.decide` does). Value type; matching is pure, in time bounded by pattern × path length.
public struct PathPattern: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The pattern as written.
    public let text: String
    private let tokens: [Token]
    /// The alternatives of a `{A,B,…}` pattern; empty for one glob.
    private let alternatives: [PathPattern]

    private enum Token: Sendable, Hashable {
        case byte(UInt8)
        case any  // ?
        case star  // *
        case globstar  // **
        case globstarSlash  // **/ : zero or more whole components
    }

    /// Parses `text`; every string is a valid pattern.
    public init(_ text: String) {
        self.text = text
        if text.count > 2, text.hasPrefix("{"), text.hasSuffix("}") {
            alternatives = text.dropFirst().dropLast().split(separator: ",", omittingEmptySubsequences: false)
                .map { PathPattern(String($0)) }
            tokens = []
            return
        }
        alternatives = []
        var tokens: [Token] = []
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "*"):
                var j = i
                while j < bytes.count, bytes[j] == UInt8(ascii: "*") { j += 1 }
                if j - i == 1 {
                    tokens.append(.star)
                } else if j < bytes.count, bytes[j] == UInt8(ascii: "/"), i == 0 || bytes[i - 1] == UInt8(ascii: "/") {
                    tokens.append(.globstarSlash)
                    j += 1
                } else {
                    tokens.append(.globstar)
                }
                i = j
            case UInt8(ascii: "?"):
                tokens.append(.any)
                i += 1
            default:
                tokens.append(.byte(bytes[i]))
                i += 1
            }
        }
        self.tokens = tokens
    }

    public var description: String { text }

    /// The globs it is made of: each alternative of a `{A,B,…}` pattern, else the text itself.
    public var globs: [String] { alternatives.isEmpty ? [text] : alternatives.map(\.text) }

    /// Whether the whole of `path` matches.
    ///
    /// Dynamic programming over (token, position), filled from the end: `next[p]` says
    /// whether tokens after the current one match `path[p...]`. Time is tokens × path
    /// length whatever the pattern (no backtracking blow-up), memory two rows, no recursion.
    public func matches(_ path: String) -> Bool {
        if !alternatives.isEmpty { return alternatives.contains { $0.matches(path) } }
        let bytes = Array(path.utf8)
        let n = bytes.count
        let slash = UInt8(ascii: "/")
        var next = [Bool](repeating: false, count: n + 1)
        next[n] = true  // no tokens left: only the empty rest matches
        var current = [Bool](repeating: false, count: n + 1)
        for token in tokens.reversed() {
            // `p` runs downwards so `current[p + 1]` is ready when `current[p]` needs it.
            var crossing = false  // globstarSlash: some `/` at or after p ends a match
            for p in stride(from: n, through: 0, by: -1) {
                let more = p < n
                switch token {
                case .byte(let b): current[p] = more && bytes[p] == b && next[p + 1]
                case .any: current[p] = more && bytes[p] != slash && next[p + 1]
                case .star: current[p] = next[p] || (more && bytes[p] != slash && current[p + 1])
                case .globstar: current[p] = next[p] || (more && current[p + 1])
                case .globstarSlash:
                    if more, bytes[p] == slash, next[p + 1] { crossing = true }
                    current[p] = next[p] || crossing
                }
            }
            swap(&next, &current)
        }
        return next[0]
    }

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    public static func == (lhs: PathPattern, rhs: PathPattern) -> Bool { lhs.text == rhs.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
