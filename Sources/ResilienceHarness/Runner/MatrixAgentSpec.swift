/// One `bench matrix --agent` value: `NAME='CMD ARGS…'` (any app, by the name its
/// column gets) or a bare builtin name (`deadzone`, `python`, a misbehaviour as
/// `misbehave:NAME` or `NAME`), which `resolve` turns into a command line.
public struct MatrixAgentSpec: Sendable, Hashable {
    public var name: String
    /// The command line given after `=`; nil for a builtin.
    public var command: AppCommandLine?

    /// A spec as read.
    public init(name: String, command: AppCommandLine?) {
        self.name = name
        self.command = command
    }

    /// Reads `text`: `NAME=CMD…` when it starts with a name (letters, digits, `._:-`)
    /// and `=`, else a builtin name.
    /// - Throws: `MatrixAgentSpecError` for an empty name or command, or a command that does not split.
    public init(parsing text: String) throws(MatrixAgentSpecError) {
        let nameCharacters = { (c: Character) in c.isLetter || c.isNumber || "._:-".contains(c) }
        if let equals = text.firstIndex(of: "="), text[..<equals].allSatisfy(nameCharacters) {
            name = String(text[..<equals])
            guard !name.isEmpty else { throw MatrixAgentSpecError(text: text, problem: "the name before = is empty") }
            do { command = try AppCommandLine(parsing: String(text[text.index(after: equals)...])) } catch {
                throw MatrixAgentSpecError(text: text, problem: error.description)
            }
        } else {
            guard !text.isEmpty, text.allSatisfy(nameCharacters) else {
                throw MatrixAgentSpecError(
                    text: text, problem: "it is neither NAME='COMMAND …' nor a builtin name")
            }
            name = text
            command = nil
        }
    }
}

/// A `bench matrix --agent` value that cannot be read; says the accepted forms.
public struct MatrixAgentSpecError: Error, Sendable, Hashable, CustomStringConvertible {
    public var text: String
    public var problem: String

    public var description: String {
        "cannot read --agent \"\(text)\": \(problem); write NAME='COMMAND ARGS…' (e.g. mine='python3 my_agent.py') "
            + "or a builtin: deadzone, python, or a misbehaviour (misbehave:NAME or NAME)"
    }
}
