/// The two network interfaces of the simulated device.
///
/// Each is one listener of the link conditioner. `cellular` is expensive by
/// default; either may be marked constrained (Low Data Mode).
public enum InterfaceKind: String, Codable, CaseIterable, Sendable, Comparable, CustomStringConvertible {
    case wifi
    case cellular

    public var description: String { rawValue }

    /// Whether the OS reports this kind of interface as expensive unless told otherwise.
    public var isExpensiveByDefault: Bool { self == .cellular }

    public static func < (lhs: InterfaceKind, rhs: InterfaceKind) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

/// The direction bytes travel through the conditioner.
public enum Direction: String, Codable, CaseIterable, Sendable {
    /// From the upstream server to the client (the download direction).
    case downlink
    /// From the client to the upstream server.
    case uplink
}

/// How an interface that goes down treats its connections.
public enum DownMode: String, Codable, CaseIterable, Sendable {
    /// Open connections get RST; new ones are refused.
    case reset
    /// Connections stay open and nothing is forwarded; new ones are accepted and then stall.
    case blackhole
    /// Open connections are closed with FIN; new ones are refused.
    case refuse
}

/// Whether an interface forwards, and if not, how it fails.
public enum InterfaceState: Equatable, Codable, Sendable, CustomStringConvertible {
    case up
    case down(DownMode)

    public var isUp: Bool { self == .up }

    public var description: String {
        switch self {
        case .up: "up"
        case .down(let mode): "down(\(mode.rawValue))"
        }
    }

    /// Parses `up` or `down(reset|blackhole|refuse)`, the form `description` writes.
    public init?(_ text: String) {
        if text == "up" { self = .up; return }
        guard text.hasPrefix("down("), text.hasSuffix(")"),
              let mode = DownMode(rawValue: String(text.dropFirst(5).dropLast())) else { return nil }
        self = .down(mode)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let state = InterfaceState(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "expected up or down(reset|blackhole|refuse), got \(text)"))
        }
        self = state
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
