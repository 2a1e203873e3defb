/// Why a scenario file could not be read.
///
/// Thrown by `ScenarioFile.load(contentsOf:)` and `ScenarioFile.parse(yaml:file:)`. It
/// names the file (`<yaml>` for text with no file), the line and column of the offending
/// node, its key path (`steps[4].timeout`), what is wrong and what to do. Its
/// `description` reads like a compiler diagnostic:
///
///     Scenarios/x.yaml:12:14: steps[4].timeout: "3 mins" has an unknown unit "mins"; expected a duration like 100ms, 1.5s, 10m or 1h
public struct ScenarioFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The family of problem, for callers (and tests) that tell them apart.
    public enum Kind: String, Sendable, Hashable {
        /// The file could not be read.
        case unreadableFile
        /// The text is not YAML, or has a duplicated key.
        case malformedYAML
        /// A key the format does not know where it stands (often a typo).
        case unknownKey
        /// A required key is absent.
        case missingKey
        /// A step kind the format does not know.
        case unknownStep
        /// A value of the wrong type: a list where a name goes, text where a number goes.
        case wrongType
        /// A value of the right type that is not allowed (out of range, an unknown
        /// interface, state or mode, a download never requested, a mark never made).
        case invalidValue
        /// A duration that does not parse.
        case badDuration
        /// An `asserts` entry that names no property.
        case unknownProperty
        /// A `needs` entry that names no capability.
        case unknownCapability
        /// A `preconditions` entry that names no precondition.
        case unknownPrecondition
        /// Two files of one suite with the same scenario name.
        case duplicateScenario
    }

    public var kind: Kind
    /// The scenario file, or nil for text with no file.
    public var file: String?
    /// 1-based line and column of the offending node, when known.
    public var line: Int?
    public var column: Int?
    /// Dotted path of the offending key, e.g. `steps[4].timeout`.
    public var keyPath: String?
    /// What is wrong and what to do.
    public var reason: String

    public init(
        kind: Kind, file: String?, line: Int? = nil, column: Int? = nil, keyPath: String? = nil, reason: String
    ) {
        self.kind = kind
        self.file = file
        self.line = line
        self.column = column
        self.keyPath = keyPath
        self.reason = reason
    }

    public var description: String {
        var location = file ?? "<yaml>"
        if let line {
            location += ":\(line)"
            if let column { location += ":\(column)" }
        }
        if let keyPath, !keyPath.isEmpty { return "\(location): \(keyPath): \(reason)" }
        return "\(location): \(reason)"
    }
}
