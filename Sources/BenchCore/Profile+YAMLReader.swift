import Yams

/// Where a profile's text came from: the file named in errors and the folder
/// that relative trace paths start from.
struct ProfileSource {
    var file: String?
    var baseDirectory: String?
}

/// One YAML node with its key path, read with precise, typed errors.
///
/// Internal to the profile loader; used on the loading thread only.
struct YAMLValue {
    let node: Node
    /// Dotted key path from the document root, e.g. `interfaces.wifi.downlink`.
    let path: String
    let source: ProfileSource

    /// An error located at this node.
    func error(_ kind: ProfileError.Kind, _ reason: String, path: String? = nil, node: Node? = nil) -> ProfileError {
        let mark = (node ?? self.node).mark
        return ProfileError(
            kind: kind, file: source.file, line: mark?.line, column: mark?.column,
            keyPath: path ?? self.path, reason: reason
        )
    }

    func child(_ key: String, _ node: Node) -> YAMLValue {
        YAMLValue(node: node, path: path.isEmpty ? key : "\(path).\(key)", source: source)
    }

    /// True for `~`, `null` or an empty plain value.
    var isNull: Bool {
        guard case .scalar(let scalar) = node, scalar.style == .plain || scalar.style == .any else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    /// The text of a scalar; `expecting` says what should be here when it is a mapping or list.
    func scalar(expecting: String) throws(ProfileError) -> String {
        guard case .scalar(let scalar) = node, !isNull else {
            throw error(.invalidValue, "expected \(expecting), found \(shape)")
        }
        return scalar.string
    }

    /// The elements of a list.
    func sequence(expecting: String) throws(ProfileError) -> [YAMLValue] {
        guard case .sequence(let sequence) = node else {
            throw error(.invalidValue, "expected \(expecting), found \(shape)")
        }
        return sequence.enumerated().map { YAMLValue(node: $1, path: "\(path)[\($0)]", source: source) }
    }

    /// The entries of a mapping, refusing keys not in `allowed`.
    ///
    /// Merge keys (`<<: *anchor`) are expanded; keys written beside them win.
    /// - Parameter unknownKey: the message for a key not allowed; by default
    ///   it suggests the nearest allowed key and lists them all.
    func mapping(
        allowed: [String],
        expecting: String,
        unknownKey: ((String) -> String)? = nil
    ) throws(ProfileError) -> YAMLMapping {
        guard case .mapping(let mapping) = node else {
            throw error(.invalidValue, "expected \(expecting), found \(shape)")
        }
        var entries: [(key: String, keyNode: Node, value: YAMLValue)] = []
        var merged: [(key: String, keyNode: Node, value: YAMLValue)] = []
        for (keyNode, valueNode) in mapping {
            guard case .scalar(let keyScalar) = keyNode else {
                throw error(.invalidValue, "keys must be plain names", node: keyNode)
            }
            let key = keyScalar.string
            if key == "<<" {
                let sources: [Node]
                switch valueNode {
                case .mapping: sources = [valueNode]
                case .sequence(let list): sources = Array(list)
                default: throw error(.invalidValue, "a merge key (<<) takes an alias of a mapping", node: keyNode)
                }
                for source in sources {
                    let inner = try YAMLValue(node: source, path: path, source: self.source)
                        .mapping(allowed: allowed, expecting: expecting, unknownKey: unknownKey)
                    merged += inner.entries.map { ($0.key, $0.value.node, $0.value) }
                }
                continue
            }
            guard allowed.contains(key) else {
                let message = unknownKey?(key) ?? Self.unknownKeyMessage(key, allowed: allowed)
                throw error(.unknownKey, message, path: child(key, keyNode).path, node: keyNode)
            }
            entries.append((key, keyNode, child(key, valueNode)))
        }
        for entry in merged where !entries.contains(where: { $0.key == entry.key }) {
            entries.append(entry)
        }
        return YAMLMapping(value: self, entries: entries.map { ($0.key, $0.value) })
    }

    /// Reads a scalar with a unit parser, turning its `UnitError` into a located `ProfileError`.
    func parse<T>(
        _ parser: (String) throws(UnitError) -> T,
        expecting: String
    ) throws(ProfileError) -> T {
        let text = try scalar(expecting: expecting)
        do {
            return try parser(text)
        } catch {
            throw self.error(.invalidValue, error.reason)
        }
    }

    /// `true` or `false`.
    func bool() throws(ProfileError) -> Bool {
        let text = try scalar(expecting: "true or false")
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default: throw error(.invalidValue, "\"\(text)\" is not a boolean; expected true or false")
        }
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

    static func unknownKeyMessage(_ key: String, allowed: [String]) -> String {
        var message = "unknown key '\(key)'"
        if let near = nearest(key, in: allowed) { message += "; did you mean '\(near)'?" }
        return message + " Allowed keys: \(allowed.joined(separator: ", "))"
    }

    /// The allowed word within two edits of `word`, if there is one.
    static func nearest(_ word: String, in candidates: [String]) -> String? {
        let scored = candidates.map { ($0, editDistance(word.lowercased(), $0)) }
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
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// The checked entries of a YAML mapping, in document order.
struct YAMLMapping {
    /// The mapping itself, for errors about missing keys.
    let value: YAMLValue
    let entries: [(key: String, value: YAMLValue)]

    subscript(key: String) -> YAMLValue? {
        entries.first { $0.key == key }.map(\.value)
    }

    /// True when `key` is present (even when its value is null).
    func has(_ key: String) -> Bool { self[key] != nil }

    /// The value of a key that must be present and not null.
    func required(_ key: String, expecting: String) throws(ProfileError) -> YAMLValue {
        guard let found = self[key], !found.isNull else {
            throw value.error(
                .missingKey, "missing '\(key)': expected \(expecting)",
                path: value.path.isEmpty ? key : "\(value.path).\(key)"
            )
        }
        return found
    }
}
