/// One interface as the operating system reports it in a network path.
public struct PathInterface: Equatable, Codable, Sendable {
    public var kind: InterfaceKind
    public var isExpensive: Bool
    public var isConstrained: Bool
    /// `host:port` a client uses to send through this interface.
    public var endpoint: String

    public init(kind: InterfaceKind, isExpensive: Bool, isConstrained: Bool, endpoint: String) {
        self.kind = kind
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
        self.endpoint = endpoint
    }
}

/// The device's network path, as an `NWPathMonitor` would publish it.
public struct NetworkPath: Equatable, Codable, Sendable {
    public enum Status: String, Codable, Sendable {
        case satisfied
        case unsatisfied
    }

    /// The interfaces the OS believes usable, WiFi first.
    public var interfaces: [PathInterface]

    public var status: Status { interfaces.isEmpty ? .unsatisfied : .satisfied }
    public var isExpensive: Bool { interfaces.first?.isExpensive ?? false }
    public var isConstrained: Bool { interfaces.first?.isConstrained ?? false }

    public init(interfaces: [PathInterface]) {
        self.interfaces = interfaces.sorted { $0.kind.rawValue > $1.kind.rawValue }
    }

    public func interface(_ kind: InterfaceKind) -> PathInterface? {
        interfaces.first { $0.kind == kind }
    }

    private enum CodingKeys: String, CodingKey { case status, interfaces }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(interfaces: try c.decode([PathInterface].self, forKey: .interfaces))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(status, forKey: .status)
        try c.encode(interfaces, forKey: .interfaces)
    }
}
