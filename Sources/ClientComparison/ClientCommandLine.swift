/// A value a client command names in braces.
public enum ClientPlaceholder: String, Sendable, Hashable, CaseIterable, Codable {
    /// The master playlist URL through the run's interface (a conditioner listener).
    case url
    /// The catalog entry URL (`/videos/{id}`) through the same interface, for clients
    /// that read the catalog API (Deadzone's engine).
    case catalogURL = "catalog_url"
    /// The absolute path of the output file, inside the work directory.
    case output
    /// The run's work directory: the client's current directory, kept between a kill
    /// and the rerun of the kill-and-rerun mode.
    case workdir
    /// This `bench` executable (so Deadzone's engine runs as `{bench} download …`).
    case bench

    /// One line for `bench compare --help` and docs/comparison.md.
    public var meaning: String {
        switch self {
        case .url: "the master playlist URL through the run's interface"
        case .catalogURL: "the catalog entry URL (/videos/{id}) through the same interface"
        case .output: "the absolute path of the output file in the work directory"
        case .workdir: "the run's work directory (the client's current directory)"
        case .bench: "this bench executable"
        }
    }
}

/// Reads placeholders out of a client command and fills them in. Pure.
///
/// `{name}` is a placeholder; `{{` and `}}` are literal braces. Each value is inserted
/// as one single-quoted shell word, so the command is safe whatever the paths hold.
public enum ClientCommandLine {
    /// The placeholders `command` uses.
    /// - Throws: `.invalid` for an unknown name or an unbalanced brace.
    public static func placeholders(in command: String, client: String) throws(ClientDefinitionError) -> Set<ClientPlaceholder> {
        var found = Set<ClientPlaceholder>()
        try scan(command, client: client) { piece throws(ClientDefinitionError) in
            if case .placeholder(let placeholder) = piece { found.insert(placeholder) }
        }
        return found
    }

    /// `command` with every placeholder replaced by its shell-quoted value.
    /// - Throws: `.invalid` for an unknown name, an unbalanced brace, or a placeholder
    ///   without a value in `values`.
    public static func render(
        _ command: String, client: String, values: [ClientPlaceholder: String]
    ) throws(ClientDefinitionError) -> String {
        var out = ""
        try scan(command, client: client) { piece throws(ClientDefinitionError) in
            switch piece {
            case .text(let text): out += text
            case .placeholder(let placeholder):
                guard let value = values[placeholder] else {
                    throw .invalid(client: client, reason: "{\(placeholder.rawValue)} has no value in this run")
                }
                out += shellQuoted(value)
            }
        }
        return out
    }

    /// `value` as one POSIX shell word: single quotes, with `'` written as `'\''`.
    public static func shellQuoted(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    private enum Piece {
        case text(String)
        case placeholder(ClientPlaceholder)
    }

    private static func scan(
        _ command: String, client: String, _ visit: (Piece) throws(ClientDefinitionError) -> Void
    ) throws(ClientDefinitionError) {
        var characters = command[...]
        var text = ""
        while let character = characters.popFirst() {
            if character == "{", characters.first == "{" {
                characters.removeFirst()
                text.append("{")
            } else if character == "}", characters.first == "}" {
                characters.removeFirst()
                text.append("}")
            } else if character == "{" {
                guard let close = characters.firstIndex(of: "}") else {
                    throw .invalid(client: client, reason: "a '{' is never closed in the command (write {{ for a literal brace)")
                }
                let name = String(characters[..<close])
                guard let placeholder = ClientPlaceholder(rawValue: name) else {
                    let known = ClientPlaceholder.allCases.map { "{\($0.rawValue)}" }.joined(separator: ", ")
                    throw .invalid(client: client, reason: "unknown placeholder {\(name)}; known: \(known) (write {{ for a literal brace)")
                }
                if !text.isEmpty { try visit(.text(text)) }
                text = ""
                try visit(.placeholder(placeholder))
                characters = characters[characters.index(after: close)...]
            } else if character == "}" {
                throw .invalid(client: client, reason: "a '}' has no '{' in the command (write }} for a literal brace)")
            } else {
                text.append(character)
            }
        }
        if !text.isEmpty { try visit(.text(text)) }
    }
}
