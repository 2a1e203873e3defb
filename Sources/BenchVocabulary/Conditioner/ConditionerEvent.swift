import BenchCore

/// Something that happened in the link conditioner, with the instant it happened.
///
/// Events are facts, named as such. They are produced on the loop thread and
/// handed to an `EventSink`; `JSONLinesEventWriter` writes one per line.
public struct ConditionerEvent: Codable, Equatable, Sendable {
    /// Nanoseconds since the conditioner's epoch (monotonic).
    public var time: UInt64
    public var kind: Kind

    public init(time: UInt64, kind: Kind) {
        self.time = time
        self.kind = kind
    }

    private enum CodingKeys: String, CodingKey {
        case time = "t"
        case kind = "event"
    }

    public enum Kind: Equatable, Sendable {
        /// A listener is ready; `endpoint` is what clients connect to.
        case listening(interface: InterfaceKind, endpoint: String)
        case connectionAccepted(connection: ConnectionID, interface: InterfaceKind, peer: String)
        /// A new connection to a down (reset or refuse) interface was accepted and closed
        /// at once with RST, with `ConditionerConfiguration.countsRefusals` on (without it
        /// the kernel refuses and nothing is seen). It gets no connection id.
        case connectionRefused(interface: InterfaceKind, peer: String)
        case upstreamConnected(connection: ConnectionID, interface: InterfaceKind, connectMilliseconds: Double)
        case upstreamFailed(connection: ConnectionID, interface: InterfaceKind, error: String)
        /// The app's first bytes on `connection` were a CONNECT request for `target`
        /// (`host:port`: the upstream's, or any with `--http-proxy`): answered 200, the
        /// connection is a tunnel from here on.
        case tunnelOpened(connection: ConnectionID, interface: InterfaceKind, target: String)
        /// `bench proxy --http-proxy`: the app's first request on `connection` was an
        /// absolute-form request for `target` (`host:port`), forwarded there in origin-form.
        case requestForwarded(connection: ConnectionID, interface: InterfaceKind, target: String)
        /// `--http-proxy --intercept`: the app's first request on `connection` named
        /// `target` (`host:port`), a host the run intercepts: the connection goes to the
        /// intercepting proxy, which answers it and records each exchange inside.
        case requestIntercepted(connection: ConnectionID, interface: InterfaceKind, target: String)
        /// The app began a message on `connection`: the conditioner read its first `bytes`
        /// from the app's socket, the first read since the connection was accepted or
        /// since bytes were last delivered to the app on it (so, for HTTP/1.1, one per
        /// request). Stamped at the read, before any link delay, loss or blackhole hold:
        /// the app had sent the request by then, whenever it reached the origin.
        case appSent(connection: ConnectionID, interface: InterfaceKind, bytes: Int)
        /// Periodic and final: `bytes` since the previous report, `total` since the start.
        case bytesForwarded(connection: ConnectionID, interface: InterfaceKind, direction: Direction, bytes: Int, total: Int)
        /// Bytes were waiting but none moved for the stall threshold.
        case stalled(connection: ConnectionID, interface: InterfaceKind, direction: Direction, pendingBytes: Int)
        /// Bytes move again after a stall.
        case flowResumed(connection: ConnectionID, interface: InterfaceKind, direction: Direction, stalledMilliseconds: Double)
        /// The loss model lost an MTU: the stream is held for a retransmission timeout.
        case packetLost(connection: ConnectionID, interface: InterfaceKind, direction: Direction, bytes: Int, heldMilliseconds: Double)
        case connectionReset(connection: ConnectionID, interface: InterfaceKind, reason: String)
        case connectionClosed(connection: ConnectionID, interface: InterfaceKind, reason: String, stats: ConnectionStats)
        case interfaceUp(interface: InterfaceKind)
        case interfaceDown(interface: InterfaceKind, mode: DownMode)
        case linkChanged(interface: InterfaceKind, summary: String)
        /// A listener could not be bound or listen again (e.g. the port was taken while it was refusing).
        case listenerFailed(interface: InterfaceKind, error: String)
        /// The real path changed (what the OS would see).
        case pathChanged(path: NetworkPath)
        /// The path was published to the app (possibly late, per profile).
        case pathPublished(path: NetworkPath)
        /// A phase of the profile's timeline played: its `index` in the profile's timeline
        /// (-1 for one applied by hand), its `label`, its offset `at` in seconds. Every
        /// change the profile makes comes with one, at the same instant, after the
        /// `linkChanged`, `interfaceUp` and `interfaceDown` it caused.
        case phaseApplied(index: Int, label: String?, at: Double)
        /// The profile's phase `phase` set `interface` to `state`, but the driver (the
        /// scenario) holds it down: the state was not applied (its link changes were).
        case profileStateHeld(interface: InterfaceKind, state: InterfaceState, phase: Int)
        /// The driver (the scenario) brought `interface` up while the profile has it in
        /// `state` (down): up wins until the profile's next change of its state.
        case profileStateOverridden(interface: InterfaceKind, state: InterfaceState)
        case timelineFinished
        /// A driver paused, resumed or moved the profile's timeline (the control API);
        /// `at` is its position afterwards, in seconds.
        case timelineControlled(action: TimelineAction, at: Double)
        case stopped
    }
}

/// What a driver did to the profile's timeline (`ConditionerEvent.Kind.timelineControlled`).
public enum TimelineAction: String, Codable, Sendable, CaseIterable {
    case paused, resumed
    /// Moved to a position: forward, the phases passed over applied at once; back, the
    /// initial setup restored and the phases up to the position applied.
    case moved
}
