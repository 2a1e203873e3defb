import BenchCore
import LinkConditioner

/// `POST /deadzone/interfaces/{wifi|cellular}`: `{"state": "up"}` or `{"state": "down",
/// "mode": "reset"|"blackhole"|"refuse"}` (reset when not said), and optionally
/// `"pathUpdate"`: `"immediate"`, `"withheld"`, or a delay (`"2s"`, or a number of seconds)
/// before the new path is published.
struct InterfaceChange: Sendable, Equatable {
    var state: InterfaceState
    var pathUpdate: PathUpdatePolicy?

    private static let known: Set<String> = ["state", "mode", "pathUpdate"]

    static func parse(_ body: JSONValue) throws(APIError) -> InterfaceChange {
        guard let fields = body.objectValue else {
            throw .badRequest("bad request body: expected a JSON object such as {\"state\": \"down\", \"mode\": \"reset\"}, got \(body)")
        }
        try refuseUnknown(fields, known: known, what: "an interface change")
        guard let state = fields["state"] else {
            throw .badRequest("missing required field: state (\"up\" or \"down\")")
        }
        let mode = try fields["mode"].map { value throws(APIError) -> DownMode in
            guard let text = value.stringValue, let mode = DownMode(rawValue: text) else {
                throw .badRequest("mode must be \"reset\", \"blackhole\" or \"refuse\", got \(value)")
            }
            return mode
        }
        let change: InterfaceState
        switch state.stringValue {
        case "up"?:
            if mode != nil { throw .badRequest("mode concerns an interface taken down: leave it out with \"state\": \"up\"") }
            change = .up
        case "down"?:
            change = .down(mode ?? .reset)
        default:
            throw .badRequest("state must be \"up\" or \"down\", got \(state)")
        }
        return InterfaceChange(state: change, pathUpdate: try fields["pathUpdate"].map(pathUpdate))
    }

    private static func pathUpdate(_ value: JSONValue) throws(APIError) -> PathUpdatePolicy {
        switch value {
        case .string("immediate"): return .immediate
        case .string("withheld"): return .withheld
        case .number(let seconds) where seconds >= 0 && seconds.isFinite:
            return seconds == 0 ? .immediate : .delayed(.milliseconds(Int64((seconds * 1000).rounded())))
        case .string(let text):
            guard let delay = try? Units.parseDuration(text) else { break }
            return delay == .zero ? .immediate : .delayed(delay)
        default:
            break
        }
        throw .badRequest("pathUpdate must be \"immediate\", \"withheld\" or a delay (\"2s\", or seconds as a number "
            + "of at least 0), got \(value)")
    }
}

/// `POST /deadzone/timeline`: `{"action": "pause"}`, `{"action": "resume"}`, or
/// `{"action": "move", "to": "1m30s"}` (or seconds as a number).
enum TimelineRequest {
    private static let known: Set<String> = ["action", "to"]

    static func parse(_ body: JSONValue) throws(APIError) -> TimelineControl {
        guard let fields = body.objectValue else {
            throw .badRequest("bad request body: expected a JSON object such as {\"action\": \"pause\"}, got \(body)")
        }
        try refuseUnknown(fields, known: known, what: "a timeline request")
        let to = fields["to"]
        guard let action = fields["action"] else {
            throw .badRequest("missing required field: action (\"pause\", \"resume\" or \"move\")")
        }
        switch action.stringValue {
        case let name? where name == "pause" || name == "resume":
            if to != nil { throw .badRequest("to concerns a move: leave it out with \"action\": \"\(name)\"") }
            return name == "pause" ? .pause : .resume
        case "move"?:
            guard let to else { throw .badRequest("missing required field: to (the position to move to, e.g. \"45s\")") }
            return .move(to: try position(to))
        default:
            throw .badRequest("action must be \"pause\", \"resume\" or \"move\", got \(action)")
        }
    }

    private static func position(_ value: JSONValue) throws(APIError) -> Duration {
        if let seconds = value.numberValue, seconds >= 0, seconds.isFinite {
            return .milliseconds(Int64((seconds * 1000).rounded()))
        }
        if let text = value.stringValue, let duration = try? Units.parseDuration(text), duration >= .zero { return duration }
        throw .badRequest("to must be a position from the timeline's start: a duration (\"45s\", \"1m30s\") or seconds "
            + "as a number of at least 0, got \(value)")
    }
}

/// A 400 naming the fields a request does not know (`what`: "an interface change").
public func refuseUnknown(_ fields: [String: JSONValue], known: Set<String>, what: String) throws(APIError) {
    let unknown = fields.keys.filter { !known.contains($0) }.sorted()
    guard unknown.isEmpty else {
        throw .badRequest("unknown field\(unknown.count == 1 ? "" : "s") in \(what): \(unknown.joined(separator: ", ")) "
            + "(known: \(known.sorted().joined(separator: ", ")))")
    }
}
