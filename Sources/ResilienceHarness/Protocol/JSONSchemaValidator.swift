/// Validates JSON values against a JSON Schema (draft 2020-12), for the subset of it the
/// app protocol's schema (`docs/app-protocol.schema.json`) uses: `$ref` (local,
/// `#/$defs/…`), `type`, `properties`, `required`, `additionalProperties`, `items`,
/// `enum`, `const`, `minimum`, `maximum` and `oneOf`. A `oneOf` whose branches are
/// objects each with a `const` for the same member (`type` or `name`) is read as a
/// discriminated union: the instance's member picks the branch, and the errors are that
/// branch's. Annotations (`title`, `description`, `format`, `$comment`…) are ignored.
///
/// Built once per schema (`AppProtocolSchema.validator`), then used from any thread.
public struct JSONSchemaValidator: Sendable {
    /// The whole schema document (refs resolve against it).
    public let root: JSONValue

    /// The keywords this validator enforces, and those it reads as annotations only.
    /// A schema with any other keyword is refused (`unsupportedKeywords`).
    public static let enforced: Set<String> = [
        "$ref", "type", "properties", "required", "additionalProperties", "items", "enum", "const", "minimum", "maximum",
        "oneOf",
    ]
    public static let annotations: Set<String> = [
        "$schema", "$id", "$defs", "$comment", "title", "description", "format", "examples", "default",
    ]

    /// A validator for the schema document `root`.
    public init(root: JSONValue) {
        self.root = root
    }

    /// One way an instance does not match.
    public struct Failure: Sendable, Hashable, CustomStringConvertible {
        /// Where in the instance, as a JSON pointer (`/fraction`, `/segments/0/bytes`; empty: the whole line).
        public var instancePath: String
        /// The schema location of the subschema that refused it (`#/$defs/event/oneOf/2/properties/fraction`).
        public var schemaPath: String
        /// What is wrong, in words.
        public var problem: String

        public var description: String {
            (instancePath.isEmpty ? "" : "field \(instancePath): ") + "\(problem) (schema \(schemaPath))"
        }
    }

    /// The first way `instance` fails the subschema at `pointer` (`#/$defs/appLine`), or nil when it matches.
    public func firstFailure(of instance: JSONValue, against pointer: String = "#") -> Failure? {
        guard let schema = resolve(pointer) else {
            return Failure(instancePath: "", schemaPath: pointer, problem: "the schema has no \(pointer)")
        }
        return check(instance, schema, at: pointer, instancePath: "")
    }

    /// Keywords of the schema that this validator neither enforces nor ignores as annotations.
    public func unsupportedKeywords() -> [String] {
        var found: Set<String> = []
        func walk(_ schema: JSONValue, definitions: Bool) {
            guard case .object(let members) = schema else { return }
            for (key, value) in members {
                if definitions {
                    walk(value, definitions: false)
                    continue
                }
                if !Self.enforced.contains(key) && !Self.annotations.contains(key) { found.insert(key) }
                switch key {
                case "$defs", "properties": walk(value, definitions: true)
                case "items", "additionalProperties": walk(value, definitions: false)
                case "oneOf": if case .array(let branches) = value { branches.forEach { walk($0, definitions: false) } }
                default: break
                }
            }
        }
        walk(root, definitions: false)
        return found.sorted()
    }

    /// The subschema at a JSON pointer fragment (`#`, `#/$defs/event/oneOf/2`).
    func resolve(_ pointer: String) -> JSONValue? {
        guard pointer.hasPrefix("#") else { return nil }
        var node = root
        for token in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: true) {
            let key = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            switch node {
            case .object(let members): guard let next = members[key] else { return nil }; node = next
            case .array(let items): guard let index = Int(key), items.indices.contains(index) else { return nil }; node = items[index]
            default: return nil
            }
        }
        return node
    }

    private func check(_ instance: JSONValue, _ schema: JSONValue, at path: String, instancePath: String) -> Failure? {
        guard case .object(let keywords) = schema else {
            if case .bool(false) = schema { return Failure(instancePath: instancePath, schemaPath: path, problem: "not allowed") }
            return nil
        }
        func fail(_ problem: String) -> Failure { Failure(instancePath: instancePath, schemaPath: path, problem: problem) }
        if case .string(let reference)? = keywords["$ref"] {
            guard let target = resolve(reference) else { return fail("the schema's $ref \(reference) names nothing") }
            if let failure = check(instance, target, at: reference, instancePath: instancePath) { return failure }
        }
        if let expected = keywords["type"], let problem = Self.typeProblem(instance, expected) { return fail(problem) }
        if let constant = keywords["const"], constant != instance {
            return fail("\(instance.brief) where \(constant.brief) is required")
        }
        if case .array(let allowed)? = keywords["enum"], !allowed.contains(instance) {
            return fail("\(instance.brief) is not one of \(allowed.map(\.brief).joined(separator: ", "))")
        }
        if case .number(let value) = instance {
            if case .number(let minimum)? = keywords["minimum"], value < minimum { return fail("\(instance.brief) is below the minimum \(JSONValue.number(minimum).brief)") }
            if case .number(let maximum)? = keywords["maximum"], value > maximum { return fail("\(instance.brief) is above the maximum \(JSONValue.number(maximum).brief)") }
        }
        if case .object(let members) = instance, let failure = checkObject(members, keywords, at: path, instancePath: instancePath) {
            return failure
        }
        if case .array(let items) = instance, let itemSchema = keywords["items"] {
            for (index, item) in items.enumerated() {
                if let failure = check(item, itemSchema, at: path + "/items", instancePath: instancePath + "/\(index)") { return failure }
            }
        }
        if case .array(let branches)? = keywords["oneOf"] {
            return oneOf(instance, branches, at: path, instancePath: instancePath)
        }
        return nil
    }

    private func checkObject(
        _ members: [String: JSONValue], _ keywords: [String: JSONValue], at path: String, instancePath: String
    ) -> Failure? {
        if case .array(let required)? = keywords["required"] {
            for case .string(let name) in required where members[name] == nil {
                return Failure(instancePath: instancePath, schemaPath: path, problem: "the required field \"\(name)\" is missing")
            }
        }
        var properties: [String: JSONValue] = [:]
        if case .object(let declared)? = keywords["properties"] { properties = declared }
        for name in members.keys.sorted() {
            let value = members[name]!
            if let schema = properties[name] {
                if let failure = check(value, schema, at: path + "/properties/" + Self.escape(name), instancePath: instancePath + "/" + Self.escape(name)) {
                    return failure
                }
            } else if let extra = keywords["additionalProperties"] {
                if case .bool(false) = extra {
                    return Failure(instancePath: instancePath, schemaPath: path + "/additionalProperties", problem: "the field \"\(name)\" is not allowed here")
                }
                if let failure = check(value, extra, at: path + "/additionalProperties", instancePath: instancePath + "/" + Self.escape(name)) {
                    return failure
                }
            }
        }
        return nil
    }

    /// `oneOf`: by discriminator when its branches have one, else exactly one must match.
    private func oneOf(_ instance: JSONValue, _ branches: [JSONValue], at path: String, instancePath: String) -> Failure? {
        let resolved = branches.map { branch -> (JSONValue, String)? in
            if case .string(let reference)? = branch["$ref"], let target = resolve(reference) { return (target, reference) }
            return (branch, "")
        }
        for key in ["type", "name"] {
            let constants = resolved.map { $0.flatMap { constant(of: $0.0, key) } }
            guard constants.allSatisfy({ $0 != nil }), Set(constants.compactMap { $0 }).count == constants.count else { continue }
            guard case .object(let members) = instance else {
                return Failure(instancePath: instancePath, schemaPath: path, problem: "\(instance.brief) where an object is required")
            }
            guard let value = members[key] else {
                return Failure(instancePath: instancePath, schemaPath: path, problem: "the required field \"\(key)\" is missing")
            }
            guard let index = constants.firstIndex(where: { $0 == value }) else {
                let names = constants.compactMap { $0?.brief }.joined(separator: ", ")
                return Failure(instancePath: instancePath + "/" + key, schemaPath: path + "/oneOf", problem: "\(value.brief) is not one of \(names)")
            }
            let branchPath = resolved[index]!.1.isEmpty ? path + "/oneOf/\(index)" : resolved[index]!.1
            return check(instance, resolved[index]!.0, at: branchPath, instancePath: instancePath)
        }
        let matching = branches.indices.filter { check(instance, branches[$0], at: path + "/oneOf/\($0)", instancePath: instancePath) == nil }
        if matching.count == 1 { return nil }
        return Failure(
            instancePath: instancePath, schemaPath: path + "/oneOf",
            problem: matching.isEmpty ? "matches none of the alternatives" : "matches more than one alternative (\(matching))")
    }

    /// The value `key` must have in every instance `schema` accepts, when the schema
    /// fixes it: its own `properties.<key>.const`, or the one all its `oneOf` branches share.
    private func constant(of schema: JSONValue, _ key: String) -> JSONValue? {
        if let value = schema["properties"]?[key]?["const"] { return value }
        guard case .array(let branches)? = schema["oneOf"], !branches.isEmpty else { return nil }
        let values = branches.map { branch -> JSONValue? in
            if case .string(let reference)? = branch["$ref"], let target = resolve(reference) { return constant(of: target, key) }
            return constant(of: branch, key)
        }
        guard let first = values.first ?? nil, values.allSatisfy({ $0 == first }) else { return nil }
        return first
    }

    private static func typeProblem(_ instance: JSONValue, _ expected: JSONValue) -> String? {
        let names: [String]
        switch expected {
        case .string(let name): names = [name]
        case .array(let list): names = list.compactMap { if case .string(let name) = $0 { name } else { nil } }
        default: return nil
        }
        let actual = instance.typeName
        if names.contains(actual) || (actual == "integer" && names.contains("number")) { return nil }
        return "\(instance.brief) is \(Self.article(actual)) where \(names.map(Self.article).joined(separator: " or ")) is required"
    }

    private static func article(_ type: String) -> String {
        switch type {
        case "null": "null"
        case "integer", "array", "object": "an \(type)"
        default: "a \(type)"
        }
    }

    private static func escape(_ token: String) -> String {
        token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}
