/// Why the kit did not send something: the app was about to write a line the harness
/// would refuse (and end the scenario with a protocol error), or the harness is gone.
public enum KitError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The line breaks the protocol; nothing was written. Says what and why.
    case invalid(String)
    /// The connection to the harness is closed; nothing more can be sent.
    case harnessGone(String)

    public var description: String {
        switch self {
        case .invalid(let why): "not sent (it breaks the app protocol): \(why)"
        case .harnessGone(let why): "not sent: the harness is gone (\(why))"
        }
    }
}
