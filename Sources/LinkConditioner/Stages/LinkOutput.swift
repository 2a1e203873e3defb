/// What a `LinkChain` or an `InterfaceLinks` tells its driver after `advance(to:)`.
///
/// Actions are imperatives for the driver: hand bytes of the connection's stream to
/// its receiving side, record that a quantum was lost, or end a connection whose
/// fault fired.
enum LinkOutput<Payload: LinkPayload> {
    /// These bytes, the next of the connection's stream, may go to the receiver now.
    case deliver(ConnectionID, Payload)
    /// A quantum of `bytes` was lost on the link: the connection's stream is held
    /// until `heldUntil` (monotonic ns), when the same bytes are sent again. Nothing
    /// is dropped; the driver only records the event.
    case lost(ConnectionID, bytes: Int, heldUntil: UInt64)
    /// A connection fault fired (`InterfaceLinks` only): the bytes before it were
    /// delivered, those after it were cut; the driver resets or closes the
    /// connection as `FaultAction` says, then removes it.
    case fault(ConnectionID, FaultAction)
}

extension LinkOutput: Sendable where Payload: Sendable {}
extension LinkOutput: Equatable where Payload: Equatable {}
