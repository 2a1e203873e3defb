import BenchCore

/// Connection faults: reset after N bytes, reset with a probability per MiB, close
/// after N bytes. The last stage bytes meet, as they leave the link for their
/// receiver: a fault counts the bytes the receivers were handed.
///
/// Its settings are the interface's `ConnectionFaults`; its per-connection state is
/// a `ConnectionFaultState`, made at a connection's first bytes from a generator
/// of that connection's own (`generator.derived("connection.<id>")`). Counts cover
/// both directions of a connection, so one stage serves both chains of an
/// interface (`InterfaceLinks`).
///
/// It takes no time: what it admits leaves at once. When a fault fires, the bytes
/// before it leave, those after it are cut, and `takeFired()` tells it once (then
/// `firedAction(for:)` keeps saying it): the driver resets or closes the connection,
/// which ends it with its event; a connection whose fault fired admits nothing more.
struct ConnectionFaultStage<Payload: LinkPayload>: LinkStage {
    private(set) var settings: ConnectionFaults
    /// Root of the per-connection generators.
    private let generator: SeededGenerator
    private var states: [ConnectionID: ConnectionFaultState] = [:]
    /// Admitted packets not yet taken, in arrival order.
    private var admitted: [LinkPacket<Payload>] = []
    private var head = 0
    /// Faults that fired since the last `takeFired()`, in order.
    private var fired: [(connection: ConnectionID, action: FaultAction)] = []

    init(settings: ConnectionFaults, generator: SeededGenerator) {
        self.settings = settings
        self.generator = generator
    }

    /// A live change, felt at once by every connection (`ConnectionFaultState.update`).
    mutating func update(settings newSettings: ConnectionFaults) {
        settings = newSettings
        for id in states.keys { states[id]!.update(faults: newSettings) }
    }

    /// Counts the packet's bytes against its connection's faults and admits those
    /// before the first fault that fires.
    mutating func enqueue(_ packet: consuming LinkPacket<Payload>) {
        let id = packet.connection
        let settings = self.settings, generator = self.generator
        // One lookup: the state is admitted to in place.
        let (allowed, firedNow) = Self.admit(packet.bytes, to: &states[id, default: ConnectionFaultState(
            faults: settings, generator: generator.derived("connection.\(id.rawValue)"))])
        if let firedNow { fired.append((id, firedNow)) }
        guard allowed > 0 else { return }
        if allowed < packet.bytes { packet.payload = packet.payload.removePrefix(allowed) }
        admitted.append(packet)
    }

    mutating func dequeue(readyBy now: UInt64) -> LinkPacket<Payload>? {
        guard head < admitted.count, admitted[head].at <= now else { return nil }
        var packet = LinkPacket(connection: admitted[head].connection, payload: Payload(), at: admitted[head].at)
        swap(&packet.payload, &admitted[head].payload)  // moved out, not copied
        head += 1
        if head == admitted.count {
            admitted.removeAll(keepingCapacity: true)
            head = 0
        }
        return packet
    }

    func nextDeadline() -> UInt64? {
        head < admitted.count ? admitted[head].at : nil
    }

    func pendingBytes(for connection: ConnectionID) -> Int {
        admitted[head...].reduce(0) { $1.connection == connection ? $0 + $1.bytes : $0 }
    }

    mutating func removeConnection(_ connection: ConnectionID) -> Int {
        states.removeValue(forKey: connection)
        fired.removeAll { $0.connection == connection }
        let dropped = pendingBytes(for: connection)
        if dropped > 0 {
            admitted = admitted[head...].filter { $0.connection != connection }
            head = 0
        }
        return dropped
    }

    /// The next fault that fired on bytes enqueued since the last call, with its
    /// connection; nil when none did. Each fault is taken once.
    mutating func takeFired() -> (connection: ConnectionID, action: FaultAction)? {
        guard !fired.isEmpty else { return nil }
        return fired.removeFirst()
    }

    /// The fault that ended `connection`, once one has fired: the driver resets or
    /// closes it (and then removes it).
    func firedAction(for connection: ConnectionID) -> FaultAction? {
        states[connection]?.firedAction
    }

    /// Admits `bytes` to `state`; the action is returned only when it fires now.
    private static func admit(_ bytes: Int, to state: inout ConnectionFaultState) -> (Int, FaultAction?) {
        let hadFired = state.firedAction != nil
        let (allowed, action) = state.admit(bytes)
        return (allowed, hadFired ? nil : action)
    }

    /// Bytes of `connection` counted so far (both directions).
    func forwardedBytes(for connection: ConnectionID) -> Int {
        states[connection]?.forwardedBytes ?? 0
    }
}

extension ConnectionFaultStage: Sendable where Payload: Sendable {}
