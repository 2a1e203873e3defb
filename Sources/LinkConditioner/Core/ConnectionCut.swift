/// How a driver cuts the open connections of an interface that stays up
/// (`LinkConditioner.cutConnections`): a middlebox's RST, or a clean FIN mid-body.
public enum ConnectionCut: String, Sendable, Hashable, CaseIterable {
    /// RST both sides: the client reads ECONNRESET.
    case reset
    /// FIN both sides, dropping what the link still held: the client reads an early end.
    case close

    /// The reason the event log gives a connection cut this way (`connectionReset` for a
    /// reset, `connectionClosed` for a close).
    public static func reason(_ cut: ConnectionCut) -> String {
        "cut by the driver (\(cut.rawValue))"
    }
}
