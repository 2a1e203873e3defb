import BenchCore
import Yams

/// One YAML node of a scenario file with its key path, read with located, typed errors.
/// Internal to the parser; used on the parsing thread only.
struct ScenarioNode {
    let node: Node
    /// Dotted key path from the root, e.g. `steps[3].timeout`.
    let path: String
    let file: String?

    /// An error at this node (or at `node`, e.g. a key).
    func error(_ kind: ScenarioFileError.Kind, _ reason: String, at node: Node? = nil, path: String? = nil)
        -> ScenarioFileError
    {
        let mark = (node ?? self.node).mark
        return ScenarioFileError(
            kind: kind, file: file, line: mark?.line, column: mark?.column, keyPath: path ?? self.path, reason: reason)
    }

    func child(_ key: String, _ node: Node) -> ScenarioNode {
        ScenarioNode(node: node, path: path.isEmpty ? key : "\(path).\(key)", file: file)
    }

    /// True for `~`, `null` or an empty plain value.
    var isNull: Bool {
        guard case .scalar(let scalar) = node, scalar.style == .plain || scalar.style == .any else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    /// `a mapping`, `a list` or `"text"`, for "found …" in messages.
    var shape: String {
        switch node {
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        case .scalar(let scalar): isNull ? "nothing" : "\"\(scalar.string)\""
        }
    }

    /// The text of a scalar.
    func text(_ expecting: String) throws(ScenarioFileError) -> String {
        guard case .scalar(let scalar) = node, !isNull else {
            throw error(.wrongType, "expected \(expecting), found \(shape)")
        }
        return scalar.string
    }

    /// The elements of a list.
    func list(_ expecting: String) throws(ScenarioFileError) -> [ScenarioNode] {
        guard case .sequence(let sequence) = node else { throw error(.wrongType, "expected \(expecting), found \(shape)") }
        return sequence.enumerated().map { ScenarioNode(node: $1, path: "\(path)[\($0)]", file: file) }
    }

    /// A list of names, or one name standing for a list of one.
    func names(_ expecting: String) throws(ScenarioFileError) -> [String] {
        if case .scalar = node { return [try text(expecting)] }
        var names: [String] = []
        for item in try list(expecting) { names.append(try item.text(expecting)) }
        return names
    }

    /// The keys and values of a mapping, in document order, each key a plain name.
    func entries(_ expecting: String) throws(ScenarioFileError) -> [(key: String, keyNode: Node, value: ScenarioNode)] {
        guard case .mapping(let mapping) = node else { throw error(.wrongType, "expected \(expecting), found \(shape)") }
        var entries: [(key: String, keyNode: Node, value: ScenarioNode)] = []
        for (keyNode, valueNode) in mapping {
            guard case .scalar(let key) = keyNode else { throw error(.wrongType, "keys must be plain names", at: keyNode) }
            entries.append((key.string, keyNode, child(key.string, valueNode)))
        }
        return entries
    }

    /// A mapping whose keys must all be in `allowed` (`what` names the mapping in errors).
    func options(_ allowed: [String], of what: String, expecting: String) throws(ScenarioFileError) -> ScenarioOptions {
        let entries = try entries(expecting)
        for entry in entries where !allowed.contains(entry.key) {
            throw unknownKey(entry.key, at: entry.keyNode, allowed: allowed, of: what)
        }
        return ScenarioOptions(owner: self, entries: entries.map { ($0.key, $0.value) })
    }

    func unknownKey(_ key: String, at keyNode: Node, allowed: [String], of what: String) -> ScenarioFileError {
        let near = Self.nearest(key, in: allowed).map { " Did you mean '\($0)'?" } ?? ""
        let list = allowed.isEmpty ? "takes no other key" : "takes " + allowed.joined(separator: ", ")
        return error(.unknownKey, "unknown key '\(key)' in \(what).\(near) \(what.prefix(1).uppercased() + what.dropFirst()) \(list)",
            at: keyNode, path: child(key, keyNode).path)
    }

    /// A whole number within `range`.
    func int(_ expecting: String, in range: ClosedRange<Int> = 0...Int.max) throws(ScenarioFileError) -> Int {
        let text = try text(expecting)
        guard let value = Int(text) else { throw error(.wrongType, "\"\(text)\" is not a whole number; expected \(expecting)") }
        guard range.contains(value) else { throw error(.invalidValue, "\(value) is out of range; expected \(expecting)") }
        return value
    }

    /// A number (`0.25`) or a percentage (`25%`) within `range`.
    func number(_ expecting: String, in range: ClosedRange<Double>, percent: Bool = false) throws(ScenarioFileError) -> Double {
        let text = try text(expecting)
        let value = percent && text.hasSuffix("%") ? Double(text.dropLast()).map { $0 / 100 } : Double(text)
        guard let value, value.isFinite else { throw error(.wrongType, "\"\(text)\" is not a number; expected \(expecting)") }
        guard range.contains(value) else { throw error(.invalidValue, "\(text) is out of range; expected \(expecting)") }
        return value
    }

    /// `true` or `false`.
    func bool() throws(ScenarioFileError) -> Bool {
        let text = try text("true or false")
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default: throw error(.wrongType, "\"\(text)\" is not a boolean; expected true or false")
        }
    }

    /// A duration (`100ms`, `1.5s`, `2m`).
    func duration() throws(ScenarioFileError) -> Duration {
        let text = try text(Units.durationExamples)
        do { return try Units.parseDuration(text) } catch { throw self.error(.badDuration, error.reason) }
    }

    /// One of `choices` by its name; `what` names the kind of value in the error.
    func choice<T>(_ choices: [(String, T)], _ what: String) throws(ScenarioFileError) -> T {
        let names = choices.map(\.0)
        let text = try text("\(what): \(names.joined(separator: ", "))")
        guard let found = choices.first(where: { $0.0 == text }) else {
            let near = Self.nearest(text, in: names).map { "; did you mean '\($0)'?" } ?? ""
            throw error(.invalidValue, "unknown \(what) '\(text)'\(near) Expected one of \(names.joined(separator: ", "))")
        }
        return found.1
    }

    /// The candidate within two edits of `word`, if there is one.
    static func nearest(_ word: String, in candidates: [String]) -> String? {
        let scored = candidates.map { ($0, editDistance(word.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= 2, best.1 <= word.count / 2 else { return nil }
        return best.0
    }

    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// The checked entries of a mapping, in document order.
struct ScenarioOptions {
    let owner: ScenarioNode
    let entries: [(key: String, value: ScenarioNode)]

    subscript(key: String) -> ScenarioNode? { entries.first { $0.key == key }?.value }

    /// The value of a key that must be present and not null.
    func required(_ key: String, expecting: String) throws(ScenarioFileError) -> ScenarioNode {
        guard let found = self[key], !found.isNull else {
            throw owner.error(.missingKey, "missing '\(key)': expected \(expecting)",
                path: owner.path.isEmpty ? key : "\(owner.path).\(key)")
        }
        return found
    }
}
