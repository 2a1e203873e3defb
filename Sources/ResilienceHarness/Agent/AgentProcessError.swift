import AppProtocol

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

    public var description: String {
        switch self {
        case .refused(let why):
            "the app refused the command: \(why)"
        case .protocolMismatch(let why):
            "the app does not speak protocol \(AppProtocol.version): \(why); see docs/app-protocol.md"
        case .exited(let status):
            "the agent exited (status \(status)) before answering; read its stderr file (AgentProcess.stderrPath) to see why"
        case .timedOut(let command):
            "the agent did not answer \(command.name) in time; it may be hung: kill it and read its stderr file"
        case .io(let why):
            "cannot talk to the agent: \(why)"
        }
    }
}
