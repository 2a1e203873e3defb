/// The ratios `bench perf gate` measures and judges. Ratios only: absolute speeds vary
/// between machines, the cost of one path relative to another measured beside it varies less.
public enum PerfGateRatio: String, CaseIterable, Codable, Sendable {
    /// Unshaped single-stream throughput through the link conditioner / through a bare
    /// byte-copying forwarder on the same loopback sockets (`PerfBareForwarder`).
    case proxyOverForwarder = "proxy-over-forwarder"
    /// The same conditioner throughput / direct loopback (no relay at all).
    case proxyOverDirect = "proxy-over-direct"
    /// Deadzone's engine's goodput (stored content bytes / launch-to-exit time of `bench
    /// download`) over a shaped link / that link's rate.
    case engineGoodput = "engine-goodput"

    /// What the ratio divides, as printed beside its key.
    public var meaning: String {
        switch self {
        case .proxyOverForwarder: "conditioner / bare forwarder, unshaped throughput"
        case .proxyOverDirect: "conditioner / direct loopback, unshaped throughput"
        case .engineGoodput: "engine goodput / shaped link rate"
        }
    }
}

/// The build configuration whose thresholds apply: a debug build's ratios differ from a
/// release build's (the conditioner's Swift is several times slower unoptimised; libuv and the
/// kernel are not), so the file holds one set for each.
public enum PerfBuildConfiguration: String, CaseIterable, Codable, Sendable {
    case debug, release

    /// The configuration this binary was built in (`#if DEBUG`).
    public static var current: PerfBuildConfiguration { perfIsDebugBuild ? .debug : .release }
}

/// The floors of one build configuration: each ratio's lowest passing value, or
/// `notMeasured` when nobody has measured that configuration yet (the gate then says so
/// and fails rather than judge against invented numbers).
public enum PerfGateThresholdSet: Sendable, Equatable {
    case floors([PerfGateRatio: Double])
    case notMeasured
}

/// The committed thresholds of `bench perf gate` (`Perf/thresholds.yaml`): one set per build
/// configuration. Read with `PerfGateThresholds.load(contentsOf:)` or `load(yaml:file:)`.
public struct PerfGateThresholds: Sendable, Equatable {
    /// The file the thresholds came from, as given (shown in the verdict).
    public var path: String
    public var sets: [PerfBuildConfiguration: PerfGateThresholdSet]

    public init(path: String, sets: [PerfBuildConfiguration: PerfGateThresholdSet]) {
        self.path = path
        self.sets = sets
    }

    /// The set for `configuration` (`notMeasured` when the file has none).
    public func set(for configuration: PerfBuildConfiguration) -> PerfGateThresholdSet {
        sets[configuration] ?? .notMeasured
    }
}

/// What is wrong with a thresholds file, naming the file, the line where known and the key,
/// and saying what to do.
public enum PerfGateThresholdsError: Error, Equatable, CustomStringConvertible {
    /// The file cannot be read (missing, unreadable, not UTF-8).
    case unreadable(path: String, reason: String)
    /// The text is not YAML, or not a mapping at the top.
    case invalidYAML(path: String, line: Int?, reason: String)
    /// A configuration (`debug`) or one of its ratios (`debug.engine-goodput`) is missing.
    case missingKey(path: String, key: String)
    /// A key the file may not hold (a misspelt ratio would otherwise go unchecked).
    case unknownKey(path: String, line: Int?, key: String, expected: [String])
    /// A value that is not what its key needs; `found` is the text written.
    case invalidValue(path: String, line: Int?, key: String, found: String)

    /// The key the error is about, e.g. "debug.engine-goodput"; nil for an unreadable or non-YAML file.
    public var key: String? {
        switch self {
        case .unreadable, .invalidYAML: nil
        case .missingKey(_, let key), .unknownKey(_, _, let key, _), .invalidValue(_, _, let key, _): key
        }
    }

    public var description: String {
        let ratios = PerfGateRatio.allCases.map(\.rawValue).joined(separator: ", ")
        switch self {
        case .unreadable(let path, let reason):
            return "cannot read the performance thresholds file \(path) (\(reason)): run from the repository's root, "
                + "or pass --thresholds PATH"
        case .invalidYAML(let path, let line, let reason):
            return "\(Self.place(path, line)): \(reason); the file maps `debug:` and `release:` each to its ratios "
                + "(\(ratios)) or to `not measured`"
        case .missingKey(let path, let key) where !key.contains("."):
            return "\(path): no `\(key):` set of thresholds: add one with \(ratios), or write `\(key): not measured`"
        case .missingKey(let path, let key):
            return "\(path): no `\(key)`: add it, a ratio above 0 measured as the file's comments describe "
                + "(or mark the whole configuration `not measured`)"
        case .unknownKey(let path, let line, let key, let expected):
            return "\(Self.place(path, line)): unknown key `\(key)`: expected one of \(expected.joined(separator: ", "))"
        case .invalidValue(let path, let line, let key, let found):
            let wanted = key.contains(".") ? "a ratio, a number above 0 (e.g. 0.5)"
                : "a mapping of \(ratios) to their floors, or `not measured`"
            return "\(Self.place(path, line)): `\(key)` is `\(found)`: write \(wanted)"
        }
    }

    private static func place(_ path: String, _ line: Int?) -> String {
        line.map { "\(path):\($0)" } ?? path
    }
}
