import BenchCore

/// What one proxied connection has done so far.
public struct ConnectionStats: Codable, Equatable, Sendable {
    public var bytesDownlink = 0
    public var bytesUplink = 0
    public var packetsLost = 0
    public var stalls = 0
    /// Milliseconds from accept to close (or to now while open).
    public var ageMilliseconds: Double = 0

    public init() {}

    public subscript(bytes direction: Direction) -> Int {
        get { direction == .downlink ? bytesDownlink : bytesUplink }
        set { if direction == .downlink { bytesDownlink = newValue } else { bytesUplink = newValue } }
    }
}
