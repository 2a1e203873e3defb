import AppProtocol
import BenchCore
import Yams

extension ScenarioFile {
    /// The file as YAML that `ScenarioFile.parse` reads back to an equal value (keys at
    /// their defaults are left out), e.g. for a shrinker writing the smallest scenario
    /// that still fails.
    public var yaml: String {
        var top: [(Node, Node)] = [kv("name", Self.text(name)), kv("summary", Self.text(summary))]
        if !asserts.isEmpty { top.append(kv("asserts", Self.flow(asserts))) }
        if !needs.isEmpty { top.append(kv("needs", Self.flow(needs.map(\.rawValue)))) }
        if focus != .wifi { top.append(kv("focus", Self.text(focus.rawValue))) }
        if targetSeconds != Self.defaultTargetSeconds { top.append(kv("target-seconds", Self.text(Self.number(targetSeconds)))) }
        if minimumCrashRestarts != 0 { top.append(kv("minimum-crash-restarts", Self.text(String(minimumCrashRestarts)))) }
        if profileFrom != .zero { top.append(kv("profile-from", Self.duration(profileFrom))) }
        if !preconditions.isEmpty {
            top.append(kv("preconditions", .sequence(Node.Sequence(preconditions.map { spec in
                spec.parameter.map { Self.mapping([(Self.text(spec.key), Self.text($0))]) } ?? Self.text(spec.key)
            }))))
        }
        top.append(kv("steps", .sequence(Node.Sequence(steps.map(\.node)))))
        do {
            return try Yams.serialize(node: Self.mapping(top), indent: 2, width: 110, allowUnicode: true)
        } catch {
            // The emitter fails only on a malformed event sequence; a tree of plain
            // scalars, lists and mappings cannot make one.
            preconditionFailure("cannot write a scenario file as YAML: \(error)")
        }
    }

    /// A mapping of `pairs`, in order.
    static func mapping(_ pairs: [(Node, Node)]) -> Node { .mapping(Node.Mapping(pairs)) }

    /// A scalar; quoted when it would read as null.
    static func text(_ string: String) -> Node {
        let nullLike = ["", "~", "null", "Null", "NULL"].contains(string)
        return .scalar(Node.Scalar(string, .implicit, nullLike ? .doubleQuoted : .any))
    }

    /// A one-line list of names: `[a, b]`.
    static func flow(_ names: [String]) -> Node {
        .sequence(Node.Sequence(names.map(text), .implicit, .flow))
    }

    /// `8`, `0.25`: the shortest form that reads back as the same number.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }

    /// A duration in the file's units, exactly (`1.5s`, `3m`, `1500001ns`).
    static func duration(_ duration: Duration) -> Node {
        let text = Units.format(duration)
        if (try? Units.parseDuration(text)) == duration { return Self.text(text) }
        return Self.text("\(duration.nanoseconds)ns")
    }
}

/// A key and its value, for `ScenarioFile.mapping`.
func kv(_ key: String, _ value: Node) -> (Node, Node) { (ScenarioFile.text(key), value) }

extension ScenarioStep {
    /// The step as its YAML node: a bare kind, or a mapping of the kind and its options.
    var node: Node {
        let (kind, argument, options) = parts
        guard let argument else {
            return options.isEmpty ? ScenarioFile.text(kind) : ScenarioFile.mapping([(ScenarioFile.text(kind), Node.scalar(Node.Scalar("", .implicit, .plain)))] + options)
        }
        return ScenarioFile.mapping([(ScenarioFile.text(kind), argument)] + options)
    }

    /// The kind's key, its argument (nil for a bare kind) and the options not at their defaults.
    private var parts: (String, Node?, [(Node, Node)]) {
        let text = ScenarioFile.text
        switch self {
        case let .up(kind, pathUpdate): return ("up", text(kind.rawValue), Self.pathUpdate(pathUpdate))
        case let .down(kind, mode, pathUpdate):
            let modeOption: [(Node, Node)] = mode == .reset ? [] : [kv("mode", text(mode.rawValue))]
            return ("down", text(kind.rawValue), modeOption + Self.pathUpdate(pathUpdate))
        case let .cut(kind, mode):
            return ("cut", text(kind.rawValue), mode == .reset ? [] : [kv("mode", text(mode.rawValue))])
        case let .waitForPath(kinds, timeout):
            return ("wait-for-path", ScenarioFile.flow(kinds.map(\.rawValue)), Self.timeout(timeout, ScenarioStep.pathTimeout))
        case .slowLicenseServer(let delay): return ("slow-license-server", ScenarioFile.duration(delay), [])
        case .originFault(let fault): return ("origin-fault", fault.parts.value, fault.parts.options)
        case .launch: return ("launch", nil, [])
        case .foreground: return ("foreground", nil, [])
        case .background: return ("background", nil, [])
        case .prepareForBackground: return ("prepare-for-background", nil, [])
        case let .kill(kind, inForeground):
            return ("kill", text(kind.rawValue), inForeground.map { [kv("in-foreground", text(String($0)))] } ?? [])
        case .request(let request):
            var options: [(Node, Node)] = []
            if request.name != request.video { options.append(kv("as", text(request.name))) }
            if let seconds = request.rentalSeconds { options.append(kv("rental-seconds", text(String(seconds)))) }
            if let allowed = request.allowsCellular { options.append(kv("allows-cellular", text(String(allowed)))) }
            return ("request", text(request.video), options)
        case let .user(action, name): return (action.rawValue, text(name), [])
        case let .userIfInFlight(action, name): return (action.rawValue, text(name), [kv("if-in-flight", "true")])
        case .setAllowsCellular(let allowed): return ("set-allows-cellular", text(String(allowed)), [])
        case let .requestSpare(videos, segments):
            return ("request-spare", ScenarioFile.flow(videos), segments == 2 ? [] : [kv("segments", text(String(segments)))])
        case .cancelIfUnsettled(let name): return ("cancel-if-unsettled", text(name), [])
        case .wait(let wait):
            var options: [(Node, Node)] = []
            if let label = wait.label { options.append(kv("label", text(label))) }
            options += Self.timeout(wait.timeout, ScenarioStep.waitTimeout)
            if wait.optional { options.append(kv("optional", "true")) }
            return ("wait", wait.until.node, options)
        case let .waitSettled(set, timeout): return ("wait-settled", set.node, Self.timeout(timeout, ScenarioStep.settleTimeout))
        case .waitForMediaResponse(let timeout):
            return ("wait-for-media-response", nil, Self.timeout(timeout, ScenarioStep.mediaResponseTimeout))
        case let .waitForRequest(glob, timeout):
            return ("wait-for-request", text(glob), Self.timeout(timeout, ScenarioStep.requestTimeout))
        case .hold(let duration): return ("hold", ScenarioFile.duration(duration), [])
        case .mark(let name): return ("mark", text(name), [])
        case .holdUntil(let hold):
            var options: [(Node, Node)] = []
            switch hold.plus {
            case .duration(let duration): if duration != .zero { options.append(kv("plus", ScenarioFile.duration(duration))) }
            case .profileDuration: options.append(kv("plus", "profile-duration"))
            }
            if let atMost = hold.atMost { options.append(kv("at-most", ScenarioFile.duration(atMost))) }
            if let set = hold.orSettled { options.append(kv("or-settled", set.node)) }
            return ("hold-until", text(hold.mark), options)
        case .note(let note): return ("note", text(note), [])
        case .inspect(let set): return ("inspect", set.node, [])
        }
    }

    private static func pathUpdate(_ update: ScenarioPathUpdate) -> [(Node, Node)] {
        switch update {
        case .published: []
        case .withheld: [kv("path-update", "withheld")]
        case .late(let delay): [kv("path-update", ScenarioFile.text("late " + (ScenarioFile.duration(delay).scalar?.string ?? "")))]
        }
    }

    private static func timeout(_ timeout: Duration, _ fallback: Duration) -> [(Node, Node)] {
        timeout == fallback ? [] : [kv("timeout", ScenarioFile.duration(timeout))]
    }
}

extension ScenarioDownloads {
    var node: Node {
        switch self {
        case .all: "all"
        case .named(let names): names.count == 1 ? ScenarioFile.text(names[0]) : ScenarioFile.flow(names)
        }
    }
}

extension ScenarioTrigger {
    var node: Node {
        let text = ScenarioFile.text
        switch self {
        case let .progress(name, threshold):
            return switch threshold {
            case .atLeast(let bound): Self.leaf([kv("progress", text(name)), kv("at-least", text(ScenarioFile.number(bound)))])
            case .above(let bound): Self.leaf([kv("progress", text(name)), kv("above", text(ScenarioFile.number(bound)))])
            }
        case let .state(name, states):
            return states.count == 1
                ? Self.leaf([kv("state", text(name)), kv("is", text(states[0].description))])
                : Self.leaf([kv("state", text(name)), kv("in", ScenarioFile.flow(states.map(\.description)))])
        case .segmentsSinceLaunch(.exactly(let n)): return Self.leaf([kv("segments-since-launch", text(String(n)))])
        case .segmentsSinceLaunch(.random(let range)):
            return Self.leaf([kv("segments-since-launch", ScenarioFile.flow([String(range.lowerBound), String(range.upperBound)]))])
        case let .segments(name, atLeast): return Self.leaf([kv("segments", text(name)), kv("at-least", text(String(atLeast)))])
        case .settled(let set): return Self.leaf([kv("settled", set.node)])
        case .any(let triggers): return ScenarioFile.mapping([kv("any", .sequence(Node.Sequence(triggers.map(\.node))))])
        }
    }

    /// A trigger other than `any`, on one line: `{progress: clear, at-least: 0.25}`.
    private static func leaf(_ pairs: [(Node, Node)]) -> Node { .mapping(Node.Mapping(pairs, .implicit, .flow)) }
}
