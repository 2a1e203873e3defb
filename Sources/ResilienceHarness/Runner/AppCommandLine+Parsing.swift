/// A command line given as one string (`bench --agent 'python3 agent.py --verbose'`)
/// that could not be split into words.
public struct AppCommandLineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text as given.
    public var text: String
    /// What is wrong, in words.
    public var problem: String

    public var description: String {
        "cannot read the agent command \"\(text)\": \(problem); write it as a shell would, e.g. --agent 'python3 examples/agents/python/agent.py'"
    }
}

extension AppCommandLine {
    /// Splits `text` into an executable and its arguments the way a POSIX shell splits
    /// words, without expanding anything: blanks separate words, `'…'` keeps its
    /// content as is, `"…"` keeps it except that `\"` and `\\` stand for `"` and `\`,
    /// and outside quotes `\` takes the next character as is.
    /// Called by `bench --agent`; an empty text or an unterminated quote is an error.
    public init(parsing text: String) throws(AppCommandLineError) {
        var words: [String] = []
        var word = ""
        var inWord = false
        var characters = text.makeIterator()
        while let character = characters.next() {
            switch character {
            case " ", "\t", "\n":
                if inWord { words.append(word); word = ""; inWord = false }
            case "'":
                inWord = true
                while true {
                    guard let next = characters.next() else { throw AppCommandLineError(text: text, problem: "a ' is not closed") }
                    if next == "'" { break }
                    word.append(next)
                }
            case "\"":
                inWord = true
                while true {
                    guard let next = characters.next() else { throw AppCommandLineError(text: text, problem: "a \" is not closed") }
                    if next == "\"" { break }
                    if next == "\\" {
                        guard let escaped = characters.next() else { throw AppCommandLineError(text: text, problem: "a \" is not closed") }
                        if escaped != "\"" && escaped != "\\" { word.append("\\") }
                        word.append(escaped)
                    } else {
                        word.append(next)
                    }
                }
            case "\\":
                guard let escaped = characters.next() else { throw AppCommandLineError(text: text, problem: "it ends with a lone \\") }
                inWord = true
                word.append(escaped)
            default:
                inWord = true
                word.append(character)
            }
        }
        if inWord { words.append(word) }
        guard let executable = words.first, !executable.isEmpty else {
            throw AppCommandLineError(text: text, problem: "it names no executable")
        }
        self.init(executable: executable, arguments: Array(words.dropFirst()))
    }
}
