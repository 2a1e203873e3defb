import Foundation

extension AgentWire {
    /// A line's error in words: for a `DecodingError`, where in the JSON and what was
    /// expected; for anything else its description. Both sides use it to say why a
    /// line was refused.
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func at(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return path.isEmpty ? "at the top level" : "at \(path)"
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing key \(key.stringValue) \(at(context))"
        case .typeMismatch(let type, let context):
            return "expected \(type) \(at(context)): \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "missing \(type) value \(at(context))"
        case .dataCorrupted(let context):
            return "\(context.debugDescription) \(at(context))"
        @unknown default:
            return "\(error)"
        }
    }

    /// The `id` of a request line whose command did not decode, so that the refusal
    /// reaches the sender waiting on it; nil when the line has no integer `id`.
    static func requestID(in line: String) -> Int? {
        struct IDOnly: Decodable { var id: Int }
        return try? decode(IDOnly.self, from: line).id
    }
}
