import Yams

/// Turns profile YAML into a `Profile`, checking every key and value.
///
/// Internal: callers use `Profile.load(contentsOf:)` or `Profile.parse(yaml:sourcePath:)`.
/// A reader is a plain value used on one thread for one document.
struct ProfileReader {
    let source: ProfileSource

    static let topKeys = ["name", "description", "seed", "duration", "path_updates", "interfaces", "timeline", "origin"]
    static let phaseKeys = ["at", "label", "path_update"] + InterfaceKind.allCases.map(\.rawValue)
    static let interfaceNames = InterfaceKind.allCases.map(\.rawValue).joined(separator: " and ")

    /// Reads a whole document.
    func read(_ yaml: String) throws(ProfileError) -> Profile {
        let root = try compose(yaml)
        let top = try root.mapping(
            allowed: Self.topKeys,
            expecting: "a profile mapping with name, duration, interfaces, timeline and origin"
        )
        let nameValue = try top.required("name", expecting: "the profile's name, e.g. name: subway-commute")
        let name = try nameValue.scalar(expecting: "the profile's name")
        guard !name.allSatisfy(\.isWhitespace) else {
            throw nameValue.error(.invalidValue, "the name is empty; expected a name like subway-commute")
        }
        let description = try top["description"].map { v throws(ProfileError) in
            try v.isNull ? "" : v.scalar(expecting: "a one-line description")
        } ?? ""
        let seed = try top["seed"].map(seed) ?? 1
        let durationValue = try top.required("duration", expecting: Units.durationExamples)
        let duration = try durationValue.parse(Units.parseDuration, expecting: Units.durationExamples)
        guard duration > .zero else {
            throw durationValue.error(.invalidValue, "a profile must last longer than 0s; expected \(Units.durationExamples)")
        }
        let pathUpdates = try top["path_updates"].map(pathUpdatePolicy) ?? .immediate

        var initial: [InterfaceKind: InterfaceSetup] = [:]
        for kind in InterfaceKind.allCases { initial[kind] = .defaultSetup(for: kind) }
        if let interfaces = top["interfaces"], !interfaces.isNull {
            let entries = try interfaces.mapping(
                allowed: InterfaceKind.allCases.map(\.rawValue),
                expecting: "a mapping of interfaces (\(Self.interfaceNames))"
            ) { key in "unknown interface '\(key)'; the interfaces are \(Self.interfaceNames)" }
            for (key, value) in entries.entries {
                let kind = InterfaceKind(rawValue: key)!
                try applyInterface(value, to: &initial[kind]!)
            }
        }

        var timeline: [Phase] = []
        if let list = top["timeline"], !list.isNull {
            timeline = try phases(list, initial: initial, duration: duration)
        }
        var origin: [OriginFaultWindow] = []
        if let list = top["origin"], !list.isNull {
            origin = try originFaults(list, duration: duration)
        }
        return Profile(
            name: name, description: description, seed: seed, duration: duration,
            initial: initial, timeline: timeline, pathUpdates: pathUpdates, origin: origin, sourcePath: source.file
        )
    }

    /// Reads the timeline, resolving each phase's patches against the setup just before it.
    private func phases(
        _ list: YAMLValue, initial: [InterfaceKind: InterfaceSetup], duration: Duration
    ) throws(ProfileError) -> [Phase] {
        var current = initial
        var phases: [Phase] = []
        let unknownKey = { (key: String) -> String in
            let near = YAMLValue.nearest(key, in: Self.phaseKeys).map { " Did you mean '\($0)'?" } ?? ""
            return "unknown key '\(key)' in a phase.\(near) A phase takes at, label, path_update "
                + "and the interfaces it changes (\(Self.interfaceNames))"
        }
        for (index, item) in try list.sequence(expecting: "a list of phases, each starting with at:").enumerated() {
            let fields = try item.mapping(
                allowed: Self.phaseKeys, expecting: "a phase mapping like {at: 30s, cellular: {state: down}}",
                unknownKey: unknownKey
            )
            let atValue = try fields.required("at", expecting: "the phase's offset, " + Units.durationExamples)
            let at = try atValue.parse(Units.parseDuration, expecting: Units.durationExamples)
            if at > duration {
                throw atValue.error(
                    .invalidTimeline,
                    "\(Units.format(at)) is beyond the profile's duration (\(Units.format(duration))); "
                        + "lengthen duration or move the phase earlier"
                )
            }
            if let previous = phases.last {
                if at == previous.at {
                    throw atValue.error(
                        .invalidTimeline,
                        "\(Units.format(at)) repeats the offset of timeline[\(index - 1)]; put both changes in one phase"
                    )
                }
                if at < previous.at {
                    throw atValue.error(
                        .invalidTimeline,
                        "\(Units.format(at)) comes before timeline[\(index - 1)] (\(Units.format(previous.at))); "
                            + "list phases in the order they happen"
                    )
                }
            }
            let label = try fields["label"].map { v throws(ProfileError) in try v.scalar(expecting: "a short label") }
            let pathUpdate = try fields["path_update"].map(pathUpdatePolicy)

            var changes: [InterfaceKind: InterfaceSetup] = [:]
            for kind in InterfaceKind.allCases {
                guard let patch = fields[kind.rawValue] else { continue }
                var setup = current[kind]!
                if try applyInterface(patch, to: &setup) == 0 {
                    throw patch.error(.invalidValue, "the phase changes nothing on \(kind); give state, downlink, uplink, faults…")
                }
                changes[kind] = setup
                current[kind] = setup
            }
            if changes.isEmpty {
                let either = InterfaceKind.allCases.map(\.rawValue).joined(separator: " or ")
                throw item.error(.invalidValue, "a phase must change \(either) (and may set label and path_update)")
            }
            phases.append(Phase(at: at, label: label, changes: changes, pathUpdate: pathUpdate))
        }
        return phases
    }

    /// A whole number ≥ 0 that fits in 64 bits.
    private func seed(_ value: YAMLValue) throws(ProfileError) -> UInt64 {
        let text = try value.scalar(expecting: "a whole number like 42")
        guard let seed = UInt64(text) else {
            throw value.error(.invalidValue, "\"\(text)\" is not a seed; expected a whole number from 0 to \(UInt64.max)")
        }
        return seed
    }

    /// Parses the YAML text into a node tree, turning Yams errors into located `ProfileError`s.
    private func compose(_ yaml: String) throws(ProfileError) -> YAMLValue {
        let node: Node?
        do {
            node = try Yams.compose(yaml: yaml)
        } catch let error as YamlError {
            throw malformed(error, yaml: yaml)
        } catch {
            throw ProfileError(kind: .malformedYAML, file: source.file, reason: "not valid YAML: \(error)")
        }
        guard let node else {
            throw ProfileError(
                kind: .malformedYAML, file: source.file,
                reason: "the profile is empty; it needs at least name and duration"
            )
        }
        return YAMLValue(node: node, path: "", source: source)
    }

    private func malformed(_ error: YamlError, yaml: String) -> ProfileError {
        func located(_ mark: Mark, _ problem: String, _ context: YamlError.Context?) -> ProfileError {
            let during = context.map { " (\($0.text) at line \($0.mark.line), column \($0.mark.column))" } ?? ""
            return ProfileError(
                kind: .malformedYAML, file: source.file, line: mark.line, column: mark.column,
                reason: "not valid YAML: \(problem)\(during)"
            )
        }
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _),
             let .composer(context, problem, mark, _):
            return located(mark, problem, context)
        case let .duplicatedKeysInMapping(duplicates, context):
            let keys = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            return ProfileError(
                kind: .malformedYAML, file: source.file, line: context.mark.line, column: context.mark.column,
                reason: "duplicate key \(keys) in the same mapping; each key may appear once"
            )
        default:
            return ProfileError(kind: .malformedYAML, file: source.file, reason: "not valid YAML: \(error)")
        }
    }
}
