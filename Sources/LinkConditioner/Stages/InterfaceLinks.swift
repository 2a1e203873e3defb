import BenchCore

/// One interface's byte path: a `LinkChain` per direction (queue and rate, loss,
/// delay, slicing), then the `ConnectionFaultStage` both directions share, since a
/// connection's fault thresholds count its bytes both ways; beside them the faults that
/// keep time (`ConnectionTimers`), whose deadlines `nextDeadline()` includes.
///
/// Owned by the interface's runtime on the loop thread. The driver enqueues what it
/// reads into `self[direction]`, calls `advance(_:to:)` when the deadline comes (or
/// `bypass` for the bytes of a transparent link with nothing queued ahead), and
/// performs the outputs: every delivery has crossed the faults, in the order the
/// bytes left the link, and a fault that fired comes right after the last bytes
/// it let through.
struct InterfaceLinks<Payload: LinkPayload> {
    var downlink: LinkChain<Payload>
    var uplink: LinkChain<Payload>
    var faults: ConnectionFaultStage<Payload>
    var timers: ConnectionTimers

    /// - Parameters:
    ///   - generator: the conditioner's root stream: each direction draws from
    ///     `"<kind>.<direction>"`, each connection's faults from `"connection.<id>"`.
    ///   - now: monotonic ns; traces start here.
    init(kind: InterfaceKind, link: InterfaceLink, generator: SeededGenerator, now: UInt64) {
        let rto = link.retransmissionTimeout.nanoseconds
        downlink = LinkChain(parameters: link.downlink, retransmissionTimeout: rto,
                             generator: generator.derived("\(kind).downlink"), now: now)
        uplink = LinkChain(parameters: link.uplink, retransmissionTimeout: rto,
                           generator: generator.derived("\(kind).uplink"), now: now)
        faults = ConnectionFaultStage(settings: link.faults, generator: generator)
        timers = ConnectionTimers(faults: link.faults)
    }

    /// A live change of the connection faults, byte counts and timers alike.
    mutating func update(faults settings: ConnectionFaults) {
        faults.update(settings: settings)
        timers.update(faults: settings)
    }

    subscript(direction: Direction) -> LinkChain<Payload> {
        // Borrowed and modified in place: a get/set pair would copy the chain's storage.
        _read {
            if direction == .downlink { yield downlink } else { yield uplink }
        }
        _modify {
            if direction == .downlink { yield &downlink } else { yield &uplink }
        }
    }

    /// Moves `direction`'s chain to `now` and passes what it releases through the
    /// faults: `LinkChain.advance(to:)`'s outputs, each delivery cut where a fault
    /// fired and followed by that `.fault`.
    mutating func advance(_ direction: Direction, to now: UInt64) -> [LinkOutput<Payload>] {
        let released = self[direction].advance(to: now)
        var outputs: [LinkOutput<Payload>] = []
        outputs.reserveCapacity(released.count)
        for output in released {
            if case let .deliver(connection, payload) = output {
                pass(payload, of: connection, now: now, into: &outputs)
            } else {
                outputs.append(output)
            }
        }
        return outputs
    }

    /// Bytes that skip a transparent link (nothing of their connection is queued
    /// in it): through the faults alone.
    mutating func bypass(_ payload: Payload, of connection: ConnectionID, now: UInt64) -> [LinkOutput<Payload>] {
        var outputs: [LinkOutput<Payload>] = []
        pass(payload, of: connection, now: now, into: &outputs)
        return outputs
    }

    private mutating func pass(_ payload: Payload, of connection: ConnectionID, now: UInt64,
                               into outputs: inout [LinkOutput<Payload>]) {
        faults.enqueue(LinkPacket(connection: connection, payload: payload, at: now))
        while let admitted = faults.dequeue(readyBy: now) {
            outputs.append(.deliver(admitted.connection, admitted.payload))
        }
        while let fired = faults.takeFired() {
            outputs.append(.fault(fired.connection, fired.action))
        }
    }

    /// The earliest deadline of either chain and of the timers.
    func nextDeadline() -> UInt64? {
        let linked: UInt64? = switch (downlink.nextDeadline(), uplink.nextDeadline()) {
        case let (d?, u?): min(d, u)
        case let (d, u): d ?? u
        }
        guard timers.isArmed, let timed = timers.nextDeadline() else { return linked }
        return min(linked ?? timed, timed)
    }

    /// Forgets a connection in every stage and in the timers. Returns the bytes discarded.
    mutating func removeConnection(_ connection: ConnectionID) -> Int {
        timers.remove(connection)
        return downlink.removeConnection(connection) + uplink.removeConnection(connection)
            + faults.removeConnection(connection)
    }
}
