import Foundation

/// A parsed JSON value, as the schema validator walks it: both the schema and each
/// line the app writes. A value type; parse from any thread.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses `text` (one JSON document).
    /// - Throws: the decoder's error when it is not JSON.
    public static func parse(_ text: some StringProtocol) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    /// The JSON type name, as JSON Schema's `type` keyword spells it (`integer` for a
    /// number with no fraction).
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number(let value): value.rounded() == value && value.isFinite ? "integer" : "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The value as it reads in a message: short, JSON-like.
    var brief: String {
        switch self {
        case .null: "null"
        case .bool(let value): String(value)
        case .number(let value): value.rounded() == value && abs(value) < 1e18 ? String(Int64(value)) : String(value)
        case .string(let value): "\"" + (value.count > 60 ? String(value.prefix(60)) + "…" : value) + "\""
        case .array(let items): "an array of \(items.count)"
        case .object: "an object"
        }
    }

    /// The member `key` of an object; nil for a missing one or a non-object.
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }
}

extension JSONValue: Decodable {
    public init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !array.isAtEnd { items.append(try array.decode(JSONValue.self)) }
            self = .array(items)
            return
        }
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            var members: [String: JSONValue] = [:]
            for key in object.allKeys { members[key.stringValue] = try object.decode(JSONValue.self, forKey: key) }
            self = .object(members)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Double.self) {
            self = .number(value)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
