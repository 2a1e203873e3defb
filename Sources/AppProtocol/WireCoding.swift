import Foundation

/// A key of a flat JSON object, any name.
struct WireKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A date on the wire: an RFC 3339 string in UTC (`2026-11-25T13:07:59Z`, fractions of
/// a second allowed), which every language parses.
struct WireDate: Codable, Hashable {
    var date: Date

    init(_ date: Date) { self.date = date }

    init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let date = Self.parse(text) else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "expected a date like 2026-11-25T13:07:59Z, got \(text)"))
        }
        self.date = date
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Self.format(date))
    }

    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}

/// Reading and writing the fields of one flat object.
extension KeyedDecodingContainer where K == WireKey {
    func field<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        try decode(T.self, forKey: WireKey(name))
    }

    func optionalField<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T? {
        try decodeIfPresent(T.self, forKey: WireKey(name))
    }

    func date(_ name: String) throws -> Date {
        try field(name, as: WireDate.self).date
    }

    func has(_ name: String) -> Bool {
        contains(WireKey(name))
    }
}

extension KeyedEncodingContainer where K == WireKey {
    mutating func field<T: Encodable>(_ name: String, _ value: T) throws {
        try encode(value, forKey: WireKey(name))
    }

    mutating func optionalField<T: Encodable>(_ name: String, _ value: T?) throws {
        try encodeIfPresent(value, forKey: WireKey(name))
    }

    mutating func date(_ name: String, _ value: Date) throws {
        try encode(WireDate(value), forKey: WireKey(name))
    }
}

/// The error for a `type` or `name` this protocol version does not have.
func unknown(_ what: String, _ value: String, in container: KeyedDecodingContainer<WireKey>, expected: [String])
    -> DecodingError
{
    DecodingError.dataCorruptedError(
        forKey: WireKey(what), in: container,
        debugDescription: "unknown \(what) \"\(value)\"; expected one of \(expected.joined(separator: ", "))")
}
