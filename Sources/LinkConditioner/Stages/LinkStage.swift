/// One impairment of a link, in the mahimahi mould: bytes go in, come out when
/// they are ready, and the stage says when that will be.
///
/// Every stage is a value type with the same tiny interface, so one loop drives
/// any of them and they compose (`LinkChain`, `InterfaceLinks`). A stage keeps its
/// settings apart from its per-connection state, reads no clock (time is passed in
/// as monotonic nanoseconds) and draws randomness only from a generator it was
/// given. The driver owns it and uses it from the loop thread only.
///
/// Nothing is dropped on the floor: every byte enqueued comes out of `dequeue`, or
/// is counted by `removeConnection`, or (connection faults only) is cut by a fault
/// that ends its connection with an event.
protocol LinkStage {
    associatedtype Payload: LinkPayload

    /// `packet` reaches this stage at `packet.at` (the driver's `now` for bytes just
    /// read, the previous stage's departure for the others).
    mutating func enqueue(_ packet: consuming LinkPacket<Payload>)

    /// Takes the next packet that leaves this stage at or before `now`, stamped with
    /// the instant it leaves (`at`); nil when none does. Call until nil.
    mutating func dequeue(readyBy now: UInt64) -> LinkPacket<Payload>?

    /// Absolute ns at which the next packet leaves; nil when none will without a new
    /// event (nothing held, or only bytes behind a stalled link).
    func nextDeadline() -> UInt64?

    /// Bytes of `connection` held by this stage.
    func pendingBytes(for connection: ConnectionID) -> Int

    /// Forgets a connection (it closed or was reset). Returns the bytes discarded.
    mutating func removeConnection(_ connection: ConnectionID) -> Int
}

/// The bytes a link carries: a run of one connection's stream, in order.
///
/// Production carries the bytes themselves (`SliceRun`, slices of the read
/// buffers), so a connection's bytes wait in exactly one place, the stage they
/// have reached; unit tests carry only counts or offsets.
protocol LinkPayload {
    /// No bytes.
    init()
    /// Bytes in the run.
    var count: Int { get }
    /// Splits off and returns the first `n` bytes, 0 < n < count.
    mutating func removePrefix(_ n: Int) -> Self
    /// Appends `other`, the bytes that follow these in the stream.
    mutating func append(_ other: Self)
}

/// Bytes of one connection on their way between stages: a quantum that crossed the
/// bottleneck, or whatever the driver read from a socket at one instant.
struct LinkPacket<Payload: LinkPayload> {
    var connection: ConnectionID
    var payload: Payload
    /// When the packet reached the stage it is entering (so stacked stages never
    /// count waiting twice), or, from `dequeue`, when it left.
    var at: UInt64
    /// Set by `LossStage` on a lost packet: the bytes go back to the bottleneck, are
    /// charged to the link again, and hold their connection until this instant.
    var heldUntil: UInt64?

    init(connection: ConnectionID, payload: Payload, at: UInt64, heldUntil: UInt64? = nil) {
        self.connection = connection
        self.payload = payload
        self.at = at
        self.heldUntil = heldUntil
    }

    var bytes: Int { payload.count }
}

extension LinkPacket: Sendable where Payload: Sendable {}
