import AppProtocol
import Foundation

/// Why `AgentProcess` could not get an answer from the app. Each says what to do.
public enum AgentProcessError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The app answered with an error: it refused the command (or the line).
    case refused(String)
    /// The app's answer to `hello` names another protocol version, or is not a hello.
    case protocolMismatch(String)
    /// The agent process is gone (exit status, or 128 + signal number; -1 unknown).
    case exited(status: Int32)
    /// No answer came in time.
    case timedOut(command: AppCommand)
    /// The pipes or the process could not be set up or written.
    case io(String)
    /// No answer to `hello` came within its time limit (the app was killed).
    case noHello(seconds: Double)
    /// A line of the app broke the protocol (the app was killed).
    case protocolViolation(ProtocolViolation)
    /// No app connected with the launch's token in time (`--agent-listen`); `refused`
    /// says why connections that came were turned away.
    case neverConnected(seconds: Double, address: String, refused: [String])
    /// The launch command could not start, or ended with a failure before the app connected.
    case launchFailed(String)
    /// The app could not be killed: the kill command failed, or nothing could reach it.
    case killFailed(String)

    public var description: String {
        switch self {
        case .refused(let why):
            "the app refused the command: \(why)"
        case .protocolMismatch(let why):
            "protocol error: the app does not speak protocol \(AppProtocol.version): \(why); see docs/app-protocol.md"
        case .noHello(let seconds):
            "protocol error: no answer to hello within \(seconds.formatted()) s: the app must answer the first line it reads "
                + "(hello) with a reply carrying its id, \"protocol\": \(AppProtocol.version), \"app\" and \"capabilities\"; "
                + "see docs/app-protocol.md"
        case .protocolViolation(let violation):
            violation.description
        case .exited(let status):
            "the agent exited (status \(status)) before answering; read its stderr file (AgentProcess.stderrPath) to see why"
        case .timedOut(let command):
            "the agent did not answer \(command.name) in time; it may be hung: kill it and read its stderr file"
        case .io(let why):
            "cannot talk to the agent: \(why)"
        case let .neverConnected(seconds, address, refused):
            "the app never connected: no connection to \(address) carried this launch's token within "
                + "\(seconds.formatted()) s; the launched app must connect to DEADZONE_CONNECT and send "
                + "{\"type\":\"connect\",\"token\":\"<DEADZONE_TOKEN>\"} first (docs/app-protocol.md, over a socket)"
                + (refused.isEmpty ? "; no connection came at all" : "; connections refused: " + refused.suffix(3).joined(separator: "; "))
        case .launchFailed(let why):
            "the app could not be launched: \(why)"
        case .killFailed(let why):
            "the app could not be killed: \(why)"
        }
    }
}
