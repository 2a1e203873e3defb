import Foundation
import Yams

extension ClientDefinition {
    /// The keys of one client in a definition file.
    static let yamlKeys = ["command", "output", "validate", "success-exit-codes", "requires", "install", "summary"]

    /// Reads the client definitions of a YAML file:
    ///
    /// ```yaml
    /// clients:
    ///   my-downloader:
    ///     command: my-dl --out {output} {url}   # required
    ///     output: video.ts                      # default output.ts
    ///     validate: auto                        # bytes | media | auto (default)
    ///     success-exit-codes: [0]               # default [0]
    ///     requires: [my-dl]                     # executables needed on PATH
    ///     install: pip install my-dl            # shown when one is missing
    ///     summary: My own downloader
    /// ```
    ///
    /// Every definition is validated; an unknown key, a wrong type or a bad command is
    /// a `ClientDefinitionError.file` naming the file and line.
    public static func load(yaml text: String, file: String) throws(ClientDefinitionError) -> [ClientDefinition] {
        let root: Node?
        do { root = try Yams.compose(yaml: text) } catch {
            throw .file(path: file, line: (error as? YamlError).flatMap(Self.line), reason: "not valid YAML: \(error)")
        }
        guard let root, case .mapping(let top) = root else {
            throw .file(path: file, line: root?.mark?.line, reason: "expected a mapping with a `clients:` key")
        }
        var clientsNode: Node?
        for (key, value) in top {
            guard key.string == "clients" else {
                throw .file(path: file, line: key.mark?.line, reason: "unknown key \"\(key.string ?? "?")\"; the file holds `clients:` only")
            }
            clientsNode = value
        }
        guard let clientsNode, case .mapping(let clients) = clientsNode else {
            throw .file(path: file, line: root.mark?.line, reason: "`clients:` must map each client's name to its definition")
        }
        var definitions: [ClientDefinition] = []
        for (nameNode, body) in clients {
            guard let name = nameNode.string else {
                throw .file(path: file, line: nameNode.mark?.line, reason: "a client name must be a plain word")
            }
            let definition = try read(name: name, body: body, file: file)
            do { try definition.validate() } catch {
                throw .file(path: file, line: nameNode.mark?.line, reason: error.description)
            }
            guard !definitions.contains(where: { $0.name == name }) else {
                throw .file(path: file, line: nameNode.mark?.line, reason: "client \"\(name)\" is defined twice")
            }
            definitions.append(definition)
        }
        return definitions
    }

    /// Reads a definition file from disk.
    public static func load(contentsOf path: String) throws(ClientDefinitionError) -> [ClientDefinition] {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw .file(path: path, line: nil, reason: "cannot read the client file: \(error.localizedDescription)")
        }
        return try load(yaml: text, file: path)
    }

    private static func read(name: String, body: Node, file: String) throws(ClientDefinitionError) -> ClientDefinition {
        guard case .mapping(let fields) = body else {
            throw .file(path: file, line: body.mark?.line, reason: "client \"\(name)\" must be a mapping with at least `command:`")
        }
        var definition = ClientDefinition(name: name, command: "")
        var sawCommand = false
        for (keyNode, value) in fields {
            let key = keyNode.string ?? ""
            let line = keyNode.mark?.line
            func text() throws(ClientDefinitionError) -> String {
                guard case .scalar(let scalar) = value else {
                    throw .file(path: file, line: line, reason: "\(name).\(key) must be text")
                }
                return scalar.string
            }
            func words() throws(ClientDefinitionError) -> [String] {
                if case .scalar(let scalar) = value { return [scalar.string] }
                guard case .sequence(let list) = value else {
                    throw .file(path: file, line: line, reason: "\(name).\(key) must be a list")
                }
                var out: [String] = []
                for item in list {
                    guard let word = item.string else { throw .file(path: file, line: item.mark?.line, reason: "\(name).\(key) holds text only") }
                    out.append(word)
                }
                return out
            }
            switch key {
            case "command":
                definition.command = try text()
                sawCommand = true
            case "output": definition.output = try text()
            case "summary": definition.summary = try text()
            case "install": definition.install = try text()
            case "requires": definition.requires = try words()
            case "validate":
                let raw = try text()
                guard let method = OutputValidationMethod(rawValue: raw) else {
                    throw .file(path: file, line: line, reason: "\(name).validate must be one of bytes, media, auto; got \"\(raw)\"")
                }
                definition.validation = method
            case "success-exit-codes":
                var codes: [Int32] = []
                for word in try words() {
                    guard let code = Int32(word), (0...255).contains(code) else {
                        throw .file(path: file, line: line, reason: "\(name).success-exit-codes holds exit statuses 0-255; got \"\(word)\"")
                    }
                    codes.append(code)
                }
                definition.successExitCodes = codes
            default:
                throw .file(path: file, line: line, reason: "unknown key \"\(key)\" in client \"\(name)\"; allowed: \(yamlKeys.joined(separator: ", "))")
            }
        }
        guard sawCommand else { throw .file(path: file, line: body.mark?.line, reason: "client \"\(name)\" has no `command:`") }
        return definition
    }

    private static func line(_ error: YamlError) -> Int? {
        switch error {
        case let .scanner(_, _, mark, _), let .parser(_, _, mark, _), let .composer(_, _, mark, _):
            mark.line
        default:
            nil
        }
    }

    /// A definition from `--client NAME=COMMAND`: output `NAME.ts`, validated `auto`.
    public static func fromArgument(_ argument: String) throws(ClientDefinitionError) -> ClientDefinition {
        guard let equals = argument.firstIndex(of: "="), equals != argument.startIndex else {
            throw .invalid(client: argument, reason: "--client takes NAME='COMMAND', e.g. --client 'mydl=mydl -o {output} {url}'")
        }
        let name = String(argument[..<equals])
        let definition = ClientDefinition(
            name: name, summary: "--client \(name)", command: String(argument[argument.index(after: equals)...]),
            output: "\(name).ts")
        try definition.validate()
        return definition
    }
}
