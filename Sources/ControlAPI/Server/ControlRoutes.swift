/// Routes served beside toxiproxy's and Deadzone's own, by a command that knows more
/// (`bench session`'s `/session…`).
public protocol ControlRoutes: Sendable {
    /// The answer to `method` on the path's `parts`, what must happen at once done before
    /// this returns (on the server's event loop); nil when the route is not one of these.
    func prepare(method: String, parts: [String], body: [UInt8]) -> (@Sendable () async -> APIResponse)?
}
