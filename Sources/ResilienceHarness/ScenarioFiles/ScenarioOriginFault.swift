import BenchCore
import FixtureOrigin
import Yams

/// An HTTP fault the scenario's origin commits (`origin-fault` step): for the requests
/// whose path matches `path`, with `probability`, at most `count` times, for `duration`
/// (a window that closes by itself) or until the scenario ends. The harness adds it to
/// the origin's fault rules and removes it when the window closes; the origin's log
/// names the rule in every request it answered (`faultRuleID`).
public struct ScenarioOriginFault: Sendable, Hashable {
    /// What the origin does to a matching request: the faults a profile's `origin:`
    /// section may name too (`OriginFault`).
    public var fault: OriginFault
    /// A glob over request paths (`*` within a component, `**` across them): `/**` is every path.
    public var path: String
    /// How long the window stays open; nil: until the scenario ends.
    public var duration: Duration?
    /// The most requests it may hit; nil: no limit.
    public var count: Int?
    /// The chance that a matching request is hit, 0…1.
    public var probability: Double

    /// Every path: the default `path`.
    public static let everyPath = "/**"
    /// The media segments of every video.
    public static let segments = "/videos/**/*.ts"

    public init(_ fault: OriginFault, path: String = everyPath, duration: Duration? = nil, count: Int? = nil, probability: Double = 1) {
        self.fault = fault
        self.path = path
        self.duration = duration
        self.count = count
        self.probability = probability
    }

    /// The origin's fault rule, named `id`.
    func rule(id: String) -> FaultRule {
        return FaultRule(id: id, path: path, fault: HTTPFault(fault), probability: probability, count: count)
    }

    /// `status 503 on /videos/**/*.ts for 3s (at most 2 requests, 50 %)`, for the trace.
    public var summary: String {
        let what = fault.summary
        let limits = [count.map { "at most \($0) request\($0 == 1 ? "" : "s")" },
                      probability < 1 ? "\(Units.format(probability: probability))" : nil].compactMap { $0 }
        return "\(what) on \(path)" + (duration.map { " for \(Units.format($0))" } ?? " until the scenario ends")
            + (limits.isEmpty ? "" : " (\(limits.joined(separator: ", ")))")
    }
}

extension ScenarioStepParser {
    /// `origin-fault: FAULT` with `path`, `for`, `count`, `probability`.
    func originFault(_ node: ScenarioNode, _ options: ScenarioOptions) throws(ScenarioFileError) -> ScenarioOriginFault {
        var fault = ScenarioOriginFault(try httpFault(node))
        if let path = options["path"] {
            fault.path = try path.text("a glob over request paths, e.g. /videos/**/*.ts")
            guard Self.isPathGlob(fault.path) else {
                throw path.error(.invalidValue, "a path glob starts with / (or is {/A,/B}), e.g. /videos/**/*.ts")
            }
        }
        if let window = options["for"] {
            let duration = try window.duration()
            guard duration > .zero else { throw window.error(.invalidValue, "a fault window must last longer than 0s") }
            fault.duration = duration
        }
        fault.count = try options["count"]?.int("a number of requests, at least 1", in: 1...Int.max)
        fault.probability = try options["probability"]?.number("a probability from 0 to 1, e.g. 0.5 or 50%", in: 0...1, percent: true) ?? 1
        return fault
    }

    /// Whether `text` is a glob over request paths: one that starts with `/`, or
    /// alternatives `{/A,/B,…}` of such globs (`PathPattern`).
    static func isPathGlob(_ text: String) -> Bool {
        PathPattern(text).globs.allSatisfy { $0.hasPrefix("/") }
    }

    static let faultExamples = "{status: 503}, {status: {code: 503, retry-after: 2s}}, stall, {stall: {after: 4096, for: 2s}}, "
        + "{truncate: 1KB}, {slow-first-byte: 2s}, malformed-playlist or captive-portal"

    /// The fault: `stall`, `malformed-playlist`, or a mapping of one fault kind.
    private func httpFault(_ node: ScenarioNode) throws(ScenarioFileError) -> OriginFault {
        if case .scalar = node.node {
            switch try node.text(Self.faultExamples) {
            case "stall": return .stall(afterBytes: 0, duration: nil)
            case "malformed-playlist": return .malformedPlaylist
            case "captive-portal": return .captivePortal
            case let other: throw node.error(.invalidValue, "unknown fault '\(other)'; expected \(Self.faultExamples)")
            }
        }
        let entries = try node.entries("a fault: " + Self.faultExamples)
        let kinds = ["status", "stall", "truncate", "slow-first-byte"]
        guard entries.count == 1, let entry = entries.first else {
            throw node.error(.invalidValue, "a fault is one kind; expected \(Self.faultExamples)")
        }
        guard kinds.contains(entry.key) else { throw node.unknownKey(entry.key, at: entry.keyNode, allowed: kinds, of: "a fault") }
        let value = entry.value
        switch entry.key {
        case "status":
            if case .scalar = value.node { return .status(code: try value.int("an error status, 400 to 599", in: 400...599), retryAfter: nil) }
            let options = try value.options(["code", "retry-after"], of: "a status fault", expecting: "{code: 503, retry-after: 2s}")
            let code = try options.required("code", expecting: "an error status, 400 to 599").int("an error status, 400 to 599", in: 400...599)
            return .status(code: code, retryAfter: try options["retry-after"]?.duration())
        case "stall":
            if value.isNull { return .stall(afterBytes: 0, duration: nil) }
            let options = try value.options(["after", "for"], of: "a stall fault", expecting: "{after: 4096, for: 2s}")
            return .stall(afterBytes: try options["after"].map { n throws(ScenarioFileError) in try size(n) } ?? 0,
                          duration: try options["for"]?.duration())
        case "truncate": return .truncate(afterBytes: try size(value))
        default: return .slowFirstByte(try value.duration())
        }
    }

    private func size(_ node: ScenarioNode) throws(ScenarioFileError) -> Int {
        let text = try node.text(Units.sizeExamples)
        do { return try Units.parseSize(text) } catch { throw node.error(.invalidValue, error.reason) }
    }
}

extension ScenarioOriginFault {
    /// The step's value and options as YAML (`ScenarioFile+YAML`).
    var parts: (value: Node, options: [(Node, Node)]) {
        let text = ScenarioFile.text
        let value: Node = switch fault {
        case let .status(code, nil): Self.flow([kv("status", text(String(code)))])
        case let .status(code, retryAfter?):
            Self.flow([kv("status", Self.flow([kv("code", text(String(code))), kv("retry-after", ScenarioFile.duration(retryAfter))]))])
        case .stall(0, nil): text("stall")
        case let .stall(afterBytes, duration):
            Self.flow([kv("stall", Self.flow([kv("after", text(String(afterBytes)))] + Self.window(duration)))])
        case let .truncate(afterBytes): Self.flow([kv("truncate", text(String(afterBytes)))])
        case let .slowFirstByte(delay): Self.flow([kv("slow-first-byte", ScenarioFile.duration(delay))])
        case .malformedPlaylist: text("malformed-playlist")
        case .captivePortal: text("captive-portal")
        }
        var options: [(Node, Node)] = []
        if path != Self.everyPath { options.append(kv("path", text(path))) }
        if let duration { options.append(kv("for", ScenarioFile.duration(duration))) }
        if let count { options.append(kv("count", text(String(count)))) }
        if probability != 1 { options.append(kv("probability", text(ScenarioFile.number(probability)))) }
        return (value, options)
    }

    private static func flow(_ pairs: [(Node, Node)]) -> Node { .mapping(Node.Mapping(pairs, .implicit, .flow)) }

    private static func window(_ duration: Duration?) -> [(Node, Node)] {
        duration.map { [kv("for", ScenarioFile.duration($0))] } ?? []
    }
}
