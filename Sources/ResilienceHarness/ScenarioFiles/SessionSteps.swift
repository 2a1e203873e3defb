import BenchCore
import Yams

/// The steps an outside test plays, one batch at a time, in a session whose app speaks
/// the app protocol (`bench session --agent …`): each batch is a list of steps as a
/// scenario file's `steps` writes them (YAML, or JSON, which is YAML), checked as a file's
/// are, and played on the session's context as a scenario file's would be. What the
/// batches named carries over from one to the next: a download requested in one is paused
/// by its name in a later one, a mark made in one is held until in another.
///
/// A value: the session keeps one and plays one batch at a time.
public struct SessionSteps: Sendable {
    private var parser: ScenarioStepParser
    private var interpreter = ScenarioInterpreter(steps: [])

    /// The steps of a session whose `request`s may also name `recordedVideos`.
    public init(recordedVideos: Set<String> = []) {
        parser = ScenarioStepParser(parser: ScenarioFileParser(file: "steps", recordedVideos: recordedVideos))
    }

    /// Reads one batch: a list of steps (`[{"request": "clear", "as": "d1"}, {"down": "wifi"}]`).
    /// A batch that does not parse changes nothing: the names of an earlier one stay as they were.
    /// - Throws: `ScenarioFileError` naming the step and what is wrong, as for a scenario file.
    public mutating func parse(_ text: String) throws(ScenarioFileError) -> [ScenarioStep] {
        guard text.contains(where: { !$0.isWhitespace }) else {
            throw ScenarioFileError(kind: .malformedYAML, file: nil, reason: "no steps: send a list of steps, e.g. "
                + #"[{"request": "clear", "as": "d1"}, {"wait-settled": "d1"}]"#)
        }
        let root = try parser.parser.compose(text)
        var trial = parser
        let steps = try trial.steps(ScenarioNode(node: root.node, path: "steps", file: nil))
        parser = trial
        return steps
    }

    /// Plays `steps` in order on `context`; stops at the first that fails.
    /// - Throws: `SessionStepFailure` with the index of the step that failed and why.
    public mutating func play(_ steps: [ScenarioStep], on context: ScenarioContext) async throws(SessionStepFailure) {
        for (index, step) in steps.enumerated() {
            do { try await interpreter.play(step, on: context) } catch {
                let isScript = if case .script = error as? ScenarioError { true } else { false }
                throw SessionStepFailure(index: index, step: step.kindName, reason: "\(error)", isScript: isScript)
            }
        }
    }

    /// Each download the steps requested, by the name they gave it, with its token (the app's id).
    public var downloads: [String: String] {
        Dictionary(interpreter.downloads.map { ($0.name, $0.token) }) { first, _ in first }
    }

    /// Closes the origin-fault windows still open (the session ends).
    public mutating func end() async {
        await interpreter.closeFaultWindows()
    }
}

/// A step of a session's batch that failed: its index in the batch, its kind and why.
public struct SessionStepFailure: Error, Sendable, CustomStringConvertible {
    /// The failed step's position in its batch, from 0 (the steps before it played).
    public var index: Int
    /// Its kind (`request`, `wait`, `kill`…).
    public var step: String
    /// What went wrong.
    public var reason: String
    /// Whether the steps themselves were wrong (a name never requested), rather than the
    /// app or a trigger failing them.
    public var isScript: Bool

    public var description: String { "step \(index) (\(step)) failed: \(reason)" }
}

extension ScenarioStep {
    /// The step's kind as a scenario file writes it (`request`, `wait-settled`…).
    var kindName: String {
        guard case .mapping(let mapping) = node, let key = mapping.first?.key.string else { return node.string ?? "step" }
        return key
    }
}
