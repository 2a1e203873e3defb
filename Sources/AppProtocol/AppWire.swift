import Foundation

/// The framing both sides use: one JSON object per line, UTF-8, keys sorted, no pretty
/// printing, `\n` after each.
public enum AppWire {
    /// `value` as one line, newline included.
    public static func line(_ value: some Encodable) throws -> Data {
        var data = try encoder.encode(value)
        data.append(0x0A)
        return data
    }

    /// Decodes one line (without its newline).
    /// - Throws: `AppWireError` naming what is wrong and where.
    public static func decode<Value: Decodable>(_ type: Value.Type, from line: some StringProtocol) throws(AppWireError)
        -> Value
    {
        do {
            return try JSONDecoder().decode(type, from: Data(line.utf8))
        } catch {
            throw AppWireError(line: String(line), error: error)
        }
    }

    /// The `id` of a line that does not decode as a whole, when it has one: the reply
    /// that refuses it can then name the request.
    public static func id(in line: some StringProtocol) -> Int? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
        return object["id"] as? Int
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

/// A line that is not a message of this protocol: which line, and what is wrong with it
/// (the field, and why), in words a person writing an app can act on.
public struct AppWireError: Error, Sendable, CustomStringConvertible {
    /// The line as received (cut at 200 characters).
    public var line: String
    /// What is wrong, e.g. `field "download": missing`.
    public var problem: String

    init(line: String, error: any Error) {
        self.line = line.count > 200 ? String(line.prefix(200)) + "…" : line
        problem = Self.describe(error)
    }

    public var description: String { "\(problem) in the line \(line)" }

    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not JSON (\(error))" }
        func path(_ keys: [any CodingKey]) -> String {
            keys.isEmpty ? "the line" : "field \"" + keys.map { $0.intValue.map(String.init) ?? $0.stringValue }
                .joined(separator: ".") + "\""
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])): missing"
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)): not a \(type)"
        case .valueNotFound(let type, let context): return "\(path(context.codingPath)): null where a \(type) is needed"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "not a JSON object (\(context.debugDescription))" }
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
