/// What a `LinkScheduler` tells its driver to do after `advance(to:)`.
///
/// Actions are imperatives for the driver: write `bytes` more of the connection's
/// stream to its receiving side, or record that a quantum was lost.
enum SchedulerOutput: Equatable, Sendable {
    /// The next `bytes` of the connection's stream may be written to the receiver now.
    case deliver(ConnectionID, bytes: Int)
    /// A quantum of `bytes` was lost on the link: the connection's stream is held
    /// until `heldUntil` (monotonic ns), when the same bytes are sent again. Nothing
    /// is dropped; the driver only records the event.
    case lost(ConnectionID, bytes: Int, heldUntil: UInt64)
}
