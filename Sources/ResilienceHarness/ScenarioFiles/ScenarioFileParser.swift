import AppProtocol
import BenchCore
import Foundation
import Yams

extension ScenarioFile {
    /// Reads and checks the scenario file at `path`; a `request` may name the fixture
    /// videos and `recordedVideos` (the ids of the recorded streams a run serves).
    public static func load(contentsOf path: String, recordedVideos: Set<String> = []) throws(ScenarioFileError)
        -> ScenarioFile
    {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw ScenarioFileError(
                kind: .unreadableFile, file: path,
                reason: "cannot read the file (\(error.localizedDescription)); check the path (see `bench scenarios`)")
        }
        return try parse(yaml: text, file: path, recordedVideos: recordedVideos)
    }

    /// The ids of the fixture videos a `request` may name (the standard catalog, two more
    /// protected videos and a second long one).
    public static var fixtureVideos: [String] { ScenarioStepParser.videos }

    /// Reads and checks a scenario from YAML text; `file` names it in errors.
    public static func parse(
        yaml: String, file: String? = nil, recordedVideos: Set<String> = []
    ) throws(ScenarioFileError) -> ScenarioFile {
        try ScenarioFileParser(file: file, recordedVideos: recordedVideos).parse(yaml)
    }
}

/// Turns scenario YAML into a `ScenarioFile`, checking every key, value and name.
/// A plain value used on one thread for one document.
struct ScenarioFileParser {
    let file: String?
    /// Recorded streams a `request` may name besides the catalog's videos.
    var recordedVideos: Set<String> = []

    static let topKeys = [
        "name", "summary", "asserts", "needs", "focus", "target-seconds", "minimum-crash-restarts", "profile-from", "preconditions",
        "steps",
    ]
    static let interfaces = InterfaceKind.allCases.map { ($0.rawValue, $0) }

    func parse(_ yaml: String) throws(ScenarioFileError) -> ScenarioFile {
        let root = try compose(yaml)
        let top = try root.options(Self.topKeys, of: "a scenario", expecting: "a scenario mapping with name, summary and steps")
        let nameNode = try top.required("name", expecting: "the scenario's kebab-case name, e.g. name: my-scenario")
        let name = try nameNode.text("the scenario's kebab-case name")
        guard !name.isEmpty, name.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "-" }), name.first?.isLetter == true else {
            throw nameNode.error(.invalidValue, "\"\(name)\" is not a kebab-case name; write lowercase words joined by -, e.g. my-scenario")
        }
        let summary = try top.required("summary", expecting: "one paragraph: what the scenario does and what it asserts")
            .text("one paragraph: what the scenario does and what it asserts")
        var file = ScenarioFile(name: name, summary: summary, steps: [])
        if let asserts = top["asserts"], !asserts.isNull { file.asserts = try properties(asserts) }
        if let needs = top["needs"], !needs.isNull { file.needs = try capabilities(needs) }
        if let focus = top["focus"] { file.focus = try focus.choice(Self.interfaces, "interface") }
        if let target = top["target-seconds"] {
            file.targetSeconds = try target.number("a number of seconds above 0, e.g. 8", in: 0.001...86_400)
        }
        if let minimum = top["minimum-crash-restarts"] {
            file.minimumCrashRestarts = try minimum.int("a whole number of restarts, 0 or more")
        }
        if let from = top["profile-from"] { file.profileFrom = try from.duration() }
        if let list = top["preconditions"], !list.isNull {
            for item in try list.list("a list of preconditions") { file.preconditions.append(try precondition(item)) }
        }
        let stepsNode = try top.required("steps", expecting: "the list of steps the harness plays")
        var stepParser = ScenarioStepParser(parser: self)
        file.steps = try stepParser.steps(stepsNode)
        return file
    }

    /// `asserts`: property ids.
    private func properties(_ node: ScenarioNode) throws(ScenarioFileError) -> [String] {
        let known = Properties.all.map(\.id)
        var ids: [String] = []
        for item in try node.list("a list of property ids, e.g. [integrity, liveness]") {
            let id = try item.text("a property id")
            guard known.contains(id) else {
                let near = ScenarioNode.nearest(id, in: known).map { "; did you mean '\($0)'?" } ?? ""
                throw item.error(.unknownProperty, "unknown property '\(id)'\(near) The properties are "
                    + known.joined(separator: ", ") + " (see `bench scenarios`)")
            }
            ids.append(id)
        }
        return ids
    }

    /// `needs`: capabilities of the app protocol.
    private func capabilities(_ node: ScenarioNode) throws(ScenarioFileError) -> [Capability] {
        let known = Capability.allCases.map(\.rawValue)
        var needs: [Capability] = []
        for item in try node.list("a list of capabilities, e.g. [licenses, inspect]") {
            let text = try item.text("a capability")
            guard let capability = Capability(rawValue: text) else {
                let near = ScenarioNode.nearest(text, in: known).map { "; did you mean '\($0)'?" } ?? ""
                throw item.error(.unknownCapability, "unknown capability '\(text)'\(near) The capabilities "
                    + "(docs/app-protocol.md) are \(known.joined(separator: ", "))")
            }
            needs.append(capability)
        }
        return needs
    }

    /// One precondition: `NAME` or `NAME: PARAMETER`.
    private func precondition(_ item: ScenarioNode) throws(ScenarioFileError) -> ScenarioPreconditionSpec {
        let known = ScenarioPreconditionSpec.oneOfEach.map(\.key)
        let name: String
        let keyNode: Node
        var parameter: ScenarioNode?
        if case .scalar = item.node {
            name = try item.text("a precondition name")
            keyNode = item.node
        } else {
            let entries = try item.entries("a precondition: NAME or NAME: PARAMETER")
            guard entries.count == 1, let entry = entries.first else {
                throw item.error(.wrongType, "a precondition is one NAME or NAME: PARAMETER; found \(entries.count) keys")
            }
            (name, keyNode, parameter) = (entry.key, entry.keyNode, entry.value.isNull ? nil : entry.value)
        }
        guard known.contains(name) else {
            let near = ScenarioNode.nearest(name, in: known).map { "; did you mean '\($0)'?" } ?? ""
            throw item.error(.unknownPrecondition, "unknown precondition '\(name)'\(near) The preconditions are "
                + known.joined(separator: ", "), at: keyNode)
        }
        let expected = ScenarioPreconditionSpec.parameterKind(of: name)
        guard let parameter else {
            if let expected { throw item.error(.missingKey, "\(name) takes \(expected); write \(name): VALUE", at: keyNode) }
            return try Self.preconditionWithoutParameter(name)
        }
        guard let expected else {
            throw parameter.error(.invalidValue, "\(name) takes no parameter; write it alone: - \(name)")
        }
        switch name {
        case "outage-hit-a-transfer":
            return .outageHitATransfer(try parameter.choice(DownMode.allCases.map { ($0.rawValue, $0) }, "down mode"))
        case "kills-with-bytes-in-flight":
            return .killsWithBytesInFlight(try parameter.int(expected, in: 1...Int.max))
        case "situation":
            return try Self.situation(parameter, expected)
        default:
            return .relaunchInterrupting(try parameter.choice(Self.relaunchKinds, "relaunch kind"))
        }
    }

    private static func preconditionWithoutParameter(_ name: String) throws(ScenarioFileError) -> ScenarioPreconditionSpec {
        guard let spec = ScenarioPreconditionSpec.oneOfEach.first(where: { $0.key == name && $0.parameter == nil }) else {
            throw ScenarioFileError(kind: .unknownPrecondition, file: nil, reason: "unknown precondition '\(name)'")
        }
        return spec
    }

    /// `INCIDENT × CONTEXT` (or `INCIDENT x CONTEXT`): a situation pair of docs/situations.md.
    private static func situation(_ node: ScenarioNode, _ expected: String) throws(ScenarioFileError)
        -> ScenarioPreconditionSpec
    {
        let text = try node.text(expected)
        let parts = text.replacingOccurrences(of: " x ", with: " × ").split(separator: "×", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2 else {
            throw node.error(.invalidValue, "'\(text)' is not \(expected)")
        }
        guard let incident = Incident(rawValue: parts[0]) else {
            let known = Incident.allCases.map(\.rawValue)
            let near = ScenarioNode.nearest(parts[0], in: known).map { "; did you mean '\($0)'?" } ?? ""
            throw node.error(.invalidValue, "unknown incident '\(parts[0])'\(near) The incidents are "
                + known.joined(separator: ", "))
        }
        guard let context = SituationContext(rawValue: parts[1]) else {
            let known = SituationContext.allCases.map(\.rawValue)
            let near = ScenarioNode.nearest(parts[1], in: known).map { "; did you mean '\($0)'?" } ?? ""
            throw node.error(.invalidValue, "unknown context '\(parts[1])'\(near) The contexts are "
                + known.joined(separator: ", "))
        }
        return .situation(incident, context)
    }

    /// The kinds a kill relaunches after (not `clean`: that is a launch).
    static let relaunchKinds = RelaunchKind.allCases.filter { $0 != .clean }.map { ($0.rawValue, $0) }

    /// Parses the text into a node tree, turning Yams errors into located errors.
    func compose(_ yaml: String) throws(ScenarioFileError) -> ScenarioNode {
        let node: Node?
        do { node = try Yams.compose(yaml: yaml) } catch let error as YamlError {
            throw malformed(error)
        } catch {
            throw ScenarioFileError(kind: .malformedYAML, file: file, reason: "not valid YAML: \(error)")
        }
        guard let node else {
            throw ScenarioFileError(kind: .malformedYAML, file: file, reason: "the file is empty; a scenario needs name, summary and steps")
        }
        return ScenarioNode(node: node, path: "", file: file)
    }

    private func malformed(_ error: YamlError) -> ScenarioFileError {
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _),
             let .composer(context, problem, mark, _):
            let during = context.map { " (\($0.text) at line \($0.mark.line), column \($0.mark.column))" } ?? ""
            return ScenarioFileError(kind: .malformedYAML, file: file, line: mark.line, column: mark.column,
                reason: "not valid YAML: \(problem)\(during); fix the indentation or quoting there")
        case let .duplicatedKeysInMapping(duplicates, context):
            let keys = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            return ScenarioFileError(kind: .malformedYAML, file: file, line: context.mark.line, column: context.mark.column,
                reason: "duplicate key \(keys) in the same mapping; each key may appear once (a step is one list item: start another with -)")
        default:
            return ScenarioFileError(kind: .malformedYAML, file: file, reason: "not valid YAML: \(error)")
        }
    }
}
