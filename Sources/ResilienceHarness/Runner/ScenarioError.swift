import Foundation

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
            "the agent process exited (status \(status.map(String.init) ?? "unknown")) \(when); "
                + Self.stderrWhere(stderr)
        case .script(let why): why
        }
    }
}

extension ScenarioError {
    /// Where a dead agent's stderr can be read: a launch's file of a scenario
    /// (`launch-<n>.stderr`) is kept with the report, under `stderr/`; any other path as is.
    static func stderrWhere(_ path: String) -> String {
        let name = (path as NSString).lastPathComponent
        guard name.hasPrefix("launch-"), name.hasSuffix(".stderr") else { return "its stderr is in \(path)" }
        let launch = name.dropFirst("launch-".count).dropLast(".stderr".count)
        return "its stderr (launch \(launch)) is kept with the report, in stderr/<scenario>-launch-\(launch).txt"
    }
}
