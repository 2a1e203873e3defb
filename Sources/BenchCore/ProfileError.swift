/// Why a profile could not be loaded.
///
/// Thrown by `Profile.load(contentsOf:)` and `Profile.parse(yaml:sourcePath:)`.
/// It always names the file (or `<yaml>` for text with no file), the line and
/// column when one is known, the key path of the offending value
/// (`interfaces.cellular.downlink.rate`, `timeline[2].at`) and what is allowed.
/// `description` reads like a compiler diagnostic:
///
///     Profiles/x.yaml:12:11: interfaces.cellular.downlink.rate: "fast" is not understood; expected a rate like 780kbit/s, 1.5Mbit/s or unlimited
public struct ProfileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The family of problem, for callers that react differently (tests, exit codes).
    public enum Kind: String, Sendable {
        /// The file could not be read at all.
        case unreadableFile
        /// The text is not YAML (a scanner or parser error), or has a duplicated key.
        case malformedYAML
        /// A key that the schema does not know (often a typo).
        case unknownKey
        /// A required key is absent.
        case missingKey
        /// A value of the wrong shape or out of range.
        case invalidValue
        /// Phases out of order, repeated, or beyond the duration.
        case invalidTimeline
        /// A referenced rate trace could not be loaded.
        case traceFailed
    }

    public var kind: Kind
    /// The profile file, or nil when the YAML came from a string with no file.
    public var file: String?
    /// 1-based line and column of the offending node, when known.
    public var line: Int?
    public var column: Int?
    /// Dotted path of the offending key, e.g. `timeline[2].cellular.state`; nil for the whole document.
    public var keyPath: String?
    /// What is wrong and what is allowed.
    public var reason: String
    /// The underlying trace error for `.traceFailed`, with its own file and line.
    public var traceError: RateTraceError?

    public init(
        kind: Kind,
        file: String?,
        line: Int? = nil,
        column: Int? = nil,
        keyPath: String? = nil,
        reason: String,
        traceError: RateTraceError? = nil
    ) {
        self.kind = kind
        self.file = file
        self.line = line
        self.column = column
        self.keyPath = keyPath
        self.reason = reason
        self.traceError = traceError
    }

    public var description: String {
        var location = file ?? "<yaml>"
        if let line {
            location += ":\(line)"
            if let column { location += ":\(column)" }
        }
        if let keyPath, !keyPath.isEmpty {
            return "\(location): \(keyPath): \(reason)"
        }
        return "\(location): \(reason)"
    }
}
