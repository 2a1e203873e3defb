import Foundation
import Yams

extension PerfGateThresholds {
    /// The value that marks a configuration whose ratios nobody has measured yet.
    public static let notMeasuredText = "not measured"

    /// Reads a thresholds file:
    ///
    /// ```yaml
    /// debug:                        # swift run -q bench perf gate --quick
    ///   proxy-over-forwarder: 0.25  # each ratio's floor: the gate fails below it
    ///   proxy-over-direct: 0.10
    ///   engine-goodput: 0.60
    /// release: not measured         # or its three floors
    /// ```
    ///
    /// Both configurations and, in a set of floors, all three ratios are required; an unknown
    /// key or a value that is not a number above 0 is a `PerfGateThresholdsError` naming the
    /// file, the line and the key (a key given twice is invalid YAML, and Yams names it).
    public static func load(yaml text: String, file: String) throws(PerfGateThresholdsError) -> PerfGateThresholds {
        let root: Node?
        do { root = try Yams.compose(yaml: text) } catch {
            throw .invalidYAML(path: file, line: (error as? YamlError).flatMap(line), reason: "not valid YAML: \(error)")
        }
        guard let root, case .mapping(let top) = root else {
            throw .invalidYAML(path: file, line: root?.mark?.line, reason: "expected a mapping with `debug:` and `release:`")
        }
        var sets: [PerfBuildConfiguration: PerfGateThresholdSet] = [:]
        for (keyNode, value) in top {
            let name = keyNode.string ?? "?"
            guard let configuration = PerfBuildConfiguration(rawValue: name) else {
                throw .unknownKey(path: file, line: keyNode.mark?.line, key: name,
                                  expected: PerfBuildConfiguration.allCases.map(\.rawValue))
            }
            sets[configuration] = try readSet(value, configuration: name, file: file)
        }
        for configuration in PerfBuildConfiguration.allCases where sets[configuration] == nil {
            throw .missingKey(path: file, key: configuration.rawValue)
        }
        return PerfGateThresholds(path: file, sets: sets)
    }

    /// Reads a thresholds file from disk.
    public static func load(contentsOf path: String) throws(PerfGateThresholdsError) -> PerfGateThresholds {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw .unreadable(path: path, reason: error.localizedDescription)
        }
        return try load(yaml: text, file: path)
    }

    private static func readSet(_ node: Node, configuration: String, file: String) throws(PerfGateThresholdsError)
        -> PerfGateThresholdSet {
        if case .scalar(let scalar) = node {
            guard scalar.string.lowercased() == notMeasuredText else {
                throw .invalidValue(path: file, line: node.mark?.line, key: configuration, found: scalar.string)
            }
            return .notMeasured
        }
        guard case .mapping(let fields) = node else {
            throw .invalidValue(path: file, line: node.mark?.line, key: configuration, found: "a list")
        }
        var floors: [PerfGateRatio: Double] = [:]
        for (keyNode, value) in fields {
            let name = keyNode.string ?? "?"
            let key = "\(configuration).\(name)"
            guard let ratio = PerfGateRatio(rawValue: name) else {
                throw .unknownKey(path: file, line: keyNode.mark?.line, key: key, expected: PerfGateRatio.allCases.map(\.rawValue))
            }
            guard case .scalar(let scalar) = value, let number = Double(scalar.string), number.isFinite, number > 0 else {
                throw .invalidValue(path: file, line: value.mark?.line ?? keyNode.mark?.line, key: key,
                                    found: value.string ?? "a mapping or a list")
            }
            floors[ratio] = number
        }
        for ratio in PerfGateRatio.allCases where floors[ratio] == nil {
            throw .missingKey(path: file, key: "\(configuration).\(ratio.rawValue)")
        }
        return .floors(floors)
    }

    private static func line(_ error: YamlError) -> Int? {
        switch error {
        case let .scanner(_, _, mark, _), let .parser(_, _, mark, _), let .composer(_, _, mark, _):
            mark.line
        default:
            nil
        }
    }
}
