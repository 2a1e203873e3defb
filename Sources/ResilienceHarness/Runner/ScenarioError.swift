/// Why a scenario's script stopped.
public enum ScenarioError: Error, Sendable, CustomStringConvertible {
    case timedOut(String)
    case agentDied(String, status: Int32?, stderr: String)
    case script(String)
    /// The app broke the protocol (`ProtocolViolation`, `AgentProcessError`): the text says how.
    case protocolBroken(String)
    /// The app's hello does not declare these capabilities, which the scenario needs.
    case unsupported([String])

    public var description: String {
        switch self {
        case .protocolBroken(let why): why
        case .unsupported(let missing): "unsupported: \(missing.joined(separator: ", "))"
        case .timedOut(let what): "timed out waiting for \(what)"
        case let .agentDied(when, status, stderr):
            "the agent process exited (status \(status.map(String.init) ?? "unknown")) \(when); its stderr is in \(stderr)"
        case .script(let why): why
        }
    }
}
