import AppProtocol

/// The app protocol's JSON Schema (`docs/app-protocol.schema.json`, embedded in
/// `AppProtocolSchema+Text.swift` so that an installed `bench` has it), and the check
/// the harness makes of every line an app writes on its stdout.
///
/// Called by `AgentProcess`'s monitor thread for each line; stateless.
public enum AppProtocolSchema {
    /// The subschema every line an app writes must match: a reply or an event.
    public static let appLinePointer = "#/$defs/appLine"
    /// The subschema every line the harness writes matches.
    public static let commandPointer = "#/$defs/command"

    /// The validator over the embedded schema. A schema that does not parse is a build
    /// defect (the tests parse it); the validator then refuses every line, saying so.
    public static let validator: JSONSchemaValidator = {
        JSONSchemaValidator(root: (try? JSONValue.parse(text)) ?? .object(["$comment": .string("unparsable")]))
    }()

    /// What is wrong with `line`, the `number`th line the app wrote, or nil when it is
    /// a reply or an event of this protocol version: not JSON, or the first place it
    /// departs from the schema (with that schema path), or a field the schema allows
    /// but the wire types refuse (an unparsable date).
    public static func violation(inLine line: String, number: Int) -> (ProtocolViolation?, AppMessage?) {
        let value: JSONValue
        do { value = try JSONValue.parse(line) } catch {
            return (ProtocolViolation(lineNumber: number, line: line, problem: "the line is not JSON", schemaPath: "#"), nil)
        }
        if let failure = validator.firstFailure(of: value, against: appLinePointer) {
            let problem = (failure.instancePath.isEmpty ? "" : "field \(failure.instancePath): ") + failure.problem
            return (ProtocolViolation(lineNumber: number, line: line, problem: problem, schemaPath: failure.schemaPath), nil)
        }
        do { return (nil, try AppWire.decode(AppMessage.self, from: line)) } catch {
            return (ProtocolViolation(lineNumber: number, line: line, problem: error.problem, schemaPath: appLinePointer), nil)
        }
    }
}

/// How an app broke the protocol: which line (its number among the lines it wrote on
/// stdout, and its text cut at 200 characters), what is wrong, and where in
/// `docs/app-protocol.schema.json` the rule is (nil for a rule the schema cannot state,
/// such as a reply to an id never sent). Ends the scenario (`ScenarioError.protocolBroken`).
public struct ProtocolViolation: Sendable, Hashable, CustomStringConvertible {
    public var lineNumber: Int
    public var line: String
    public var problem: String
    public var schemaPath: String?

    /// A violation; `line` is cut at 200 characters.
    public init(lineNumber: Int, line: String, problem: String, schemaPath: String?) {
        self.lineNumber = lineNumber
        self.line = line.count > 200 ? String(line.prefix(200)) + "…" : line
        self.problem = problem
        self.schemaPath = schemaPath
    }

    public var description: String {
        "protocol error: line \(lineNumber) of the app's stdout: \(problem)"
            + (schemaPath.map { " (schema path \($0) in docs/app-protocol.schema.json)" } ?? "")
            + "; the line: \(line)"
    }
}
