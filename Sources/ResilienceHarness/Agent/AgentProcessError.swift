/// Why `AgentProcess` could not get an answer from the agent. Each says what to do.
public enum AgentProcessError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The agent answered with an error: the engine refused the command (or the line).
    case refused(String)
    /// The agent process is gone (exit status, or 128 + signal number; -1 unknown).
    case exited(status: Int32)
    /// No answer came in time.
    case timedOut(command: AgentCommand)
    /// The pipes or the process could not be set up or written.
    case io(String)

    public var description: String {
        switch self {
        case .refused(let why):
            "the agent refused the command: \(why)"
        case .exited(let status):
            "the agent exited (status \(status)) before answering; read its stderr file (AgentProcess.stderrPath) to see why"
        case .timedOut(let command):
            "the agent did not answer \(command.name) in time; it may be hung: kill it and read its stderr file"
        case .io(let why):
            "cannot talk to the agent: \(why)"
        }
    }
}

extension AgentCommand {
    /// The command's name, e.g. `setPath` or `inspect`: for messages and logs.
    public var name: String {
        switch self {
        case .setPath: "setPath"
        case .setForeground: "setForeground"
        case .prepareForBackground: "prepareForBackground"
        case .setAllowsCellular: "setAllowsCellular"
        case .request: "request"
        case .pause: "pause"
        case .resume: "resume"
        case .cancel: "cancel"
        case .delete: "delete"
        case .inspect: "inspect"
        case .shutdown: "shutdown"
        }
    }
}
