/// What the driver must do to a connection when one of its faults fires.
enum FaultAction: Equatable, Sendable {
    /// Reset both sides (RST, `uv_tcp_close_reset`).
    case reset(reason: String)
    /// Close both sides gracefully (FIN, `uv_shutdown`).
    case close(reason: String)
}
