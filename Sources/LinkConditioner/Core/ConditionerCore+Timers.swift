import BenchCore

/// The connection faults that keep time (`ConnectionTimers`: reset or close after a
/// time open, slow close), performed on the loop thread. Their deadlines are in the
/// interface's `nextLinkDeadline()`, so the one precise timer wakes the core for them
/// even when no byte moves; like the links, they wait while the interface is blackholed.
extension ConditionerCore {
    /// Performs every timer of `runtime` that is due: resets and closes connections
    /// whose time ran out, passes the ends whose close delay has passed.
    func fireTimers(_ runtime: InterfaceRuntime) {
        guard runtime.isForwarding, runtime.links.timers.isArmed else { return }
        for action in runtime.links.timers.due(now: now) {
            switch action {
            case let .fault(id, fault): runtime.connections[id]?.perform(fault)
            case let .passEnd(id, direction): runtime.connections[id]?.passEnd(direction)
            }
        }
    }

    /// A new connection: its age counts from now. A time fault of zero ends it at once,
    /// before anything is forwarded. Whether it is still open.
    func openTimers(_ connection: ProxyConnection, _ runtime: InterfaceRuntime) -> Bool {
        runtime.links.timers.open(connection.id, at: connection.acceptedAt)
        guard runtime.links.timers.isArmed else { return true }
        fireTimers(runtime)
        rearm()
        return runtime.connections[connection.id] != nil
    }

    /// The sender of `direction` ended and all it sent was delivered: whether its end
    /// must wait out the interface's close delay (then `passEnd` comes when it has).
    func holdsEnd(of connection: ProxyConnection, _ direction: Direction) -> Bool {
        guard let runtime = interfaces[connection.interface],
              runtime.links.timers.holdEnd(of: connection.id, direction, now: now) else { return false }
        rearm()
        return true
    }
}
