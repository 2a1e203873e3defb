import BenchCore

/// Byte and connection counters of one interface.
public struct InterfaceCounters: Codable, Equatable, Sendable {
    public var bytesDownlink = 0
    public var bytesUplink = 0
    public var connectionsAccepted = 0
    /// New connections to a down (reset, refuse) interface accepted and reset at once
    /// (`ConditionerConfiguration.countsRefusals`); 0 when the kernel refuses them.
    public var connectionsRefused = 0
    public var connectionsReset = 0
    public var connectionsClosed = 0
    public var upstreamFailures = 0
    public var packetsLostDownlink = 0
    public var packetsLostUplink = 0
    /// Bytes read from senders and thrown away while their direction discarded
    /// (`LinkDirectionParameters.discards`): never forwarded, so not in `bytesDownlink`.
    public var bytesDiscardedDownlink = 0
    /// The same for the uplink (what the app sent).
    public var bytesDiscardedUplink = 0

    public init() {}

    public subscript(bytes direction: Direction) -> Int {
        get { direction == .downlink ? bytesDownlink : bytesUplink }
        set { if direction == .downlink { bytesDownlink = newValue } else { bytesUplink = newValue } }
    }

    mutating func countDiscarded(_ bytes: Int, _ direction: Direction) {
        if direction == .downlink { bytesDiscardedDownlink += bytes } else { bytesDiscardedUplink += bytes }
    }

    mutating func countLoss(_ direction: Direction) {
        if direction == .downlink { packetsLostDownlink += 1 } else { packetsLostUplink += 1 }
    }
}

/// A consistent picture of the conditioner, taken on the loop thread.
public struct ConditionerSnapshot: Codable, Equatable, Sendable {
    public struct Interface: Codable, Equatable, Sendable {
        public var kind: InterfaceKind
        public var endpoint: String
        public var state: InterfaceState
        public var counters: InterfaceCounters
    }

    public struct Connection: Codable, Equatable, Sendable {
        public var id: ConnectionID
        public var interface: InterfaceKind
        public var peer: String
        public var stats: ConnectionStats
    }

    public var interfaces: [Interface]
    public var connections: [Connection]
    /// The path as it really is.
    public var path: NetworkPath
    /// The path as last published to the app.
    public var publishedPath: NetworkPath
    /// Where the profile's timeline is; nil when the conditioner does not play it.
    public var timeline: TimelineStatus? = nil

    public func interface(_ kind: InterfaceKind) -> Interface? {
        interfaces.first { $0.kind == kind }
    }
}
