/// Identifies one proxied connection for the lifetime of a conditioner.
///
/// The conditioner hands out increasing numbers as it accepts connections, so
/// `ConnectionID`s order by acceptance. It encodes as a plain JSON number
/// (`17`, not `{"rawValue":17}`) so trace lines stay short and readable.
public struct ConnectionID: RawRepresentable, Hashable, Comparable, Codable, Sendable,
    CustomStringConvertible, ExpressibleByIntegerLiteral
{
    public var rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public init(integerLiteral value: UInt64) {
        self.rawValue = value
    }

    public static func < (lhs: ConnectionID, rhs: ConnectionID) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// `#17`
    public var description: String { "#\(rawValue)" }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(UInt64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
