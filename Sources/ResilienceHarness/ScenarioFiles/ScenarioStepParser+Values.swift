import AppProtocol
import BenchCore

extension ScenarioStepParser {
    /// `path-update: published | withheld | late DURATION`.
    func pathUpdate(_ node: ScenarioNode?) throws(ScenarioFileError) -> ScenarioPathUpdate {
        guard let node else { return .published }
        let expecting = "published, withheld or late DURATION (e.g. late 2s)"
        let text = try node.text(expecting)
        switch text {
        case "published": return .published
        case "withheld": return .withheld
        default:
            guard text.hasPrefix("late ") else {
                throw node.error(.invalidValue, "unknown path update '\(text)'; expected \(expecting)")
            }
            do { return .late(try Units.parseDuration(String(text.dropFirst(5)))) } catch {
                throw node.error(.badDuration, error.reason)
            }
        }
    }

    func timeout(_ options: ScenarioOptions, _ fallback: Duration) throws(ScenarioFileError) -> Duration {
        guard let node = options["timeout"] else { return fallback }
        let timeout = try node.duration()
        guard timeout > .zero else { throw node.error(.invalidValue, "a timeout must be longer than 0s") }
        return timeout
    }

    /// `request: VIDEO` with `as`, `rental-seconds`, `allows-cellular`.
    mutating func request(_ node: ScenarioNode, _ options: ScenarioOptions) throws(ScenarioFileError) -> ScenarioRequest {
        let video = try node.text("a catalog video, e.g. clear")
        guard knownVideos.contains(video) else { throw unknownVideo(video, at: node) }
        let nameNode = options["as"] ?? node
        let name = try options["as"]?.text("a name for the download") ?? video
        if name == "all" { throw nameNode.error(.invalidValue, "'all' means every download; give this one another name with as:") }
        if requested.contains(name) {
            throw nameNode.error(.invalidValue, "a download named '\(name)' was already requested; give this one another name with as: NAME")
        }
        if let line = spares[name] {
            throw nameNode.error(.invalidValue, "'\(name)' may already be taken by the request-spare at line \(line); "
                + "give this download another name with as: NAME")
        }
        requested.append(name)
        return ScenarioRequest(
            video, name: name,
            rentalSeconds: try options["rental-seconds"]?.int("a rental's length in whole seconds, at least 1", in: 1...Int.max),
            allowsCellular: try options["allows-cellular"]?.bool())
    }

    /// The name of a download requested by an earlier step.
    func download(_ node: ScenarioNode) throws(ScenarioFileError) -> String {
        let name = try node.text("the name of a download requested earlier")
        guard requested.contains(name) else {
            let spare = spares[name].map { _ in " (a request-spare may or may not request it: use all to include it)" } ?? ""
            let known = requested.isEmpty ? "none yet" : requested.joined(separator: ", ")
            throw node.error(.invalidValue, "no download named '\(name)' was requested before this step\(spare); request it "
                + "first (request: VIDEO, as: \(name)). Requested so far: \(known)")
        }
        return name
    }

    /// `all`, a name, or a list of names.
    func downloads(_ node: ScenarioNode) throws(ScenarioFileError) -> ScenarioDownloads {
        if case .scalar = node.node, try node.text("all, a download's name or a list of names") == "all" { return .all }
        var names: [String] = []
        for item in (try? node.list("")) ?? [node] { names.append(try download(item)) }
        return .named(names)
    }

    /// The catalog's videos and the recorded streams the run serves (`--catalog`).
    var knownVideos: [String] { Self.videos + parser.recordedVideos.sorted() }

    func unknownVideo(_ video: String, at node: ScenarioNode) -> ScenarioFileError {
        let near = ScenarioNode.nearest(video, in: knownVideos).map { "; did you mean '\($0)'?" } ?? ""
        let recorded = parser.recordedVideos.isEmpty ? " (a recorded stream is known with --catalog DIR)" : ""
        return node.error(
            .invalidValue, "unknown video '\(video)'\(near) The catalog has \(knownVideos.joined(separator: ", "))\(recorded)")
    }

    /// `wait: TRIGGER` with `label`, `timeout`, `optional`.
    func wait(_ node: ScenarioNode, _ options: ScenarioOptions) throws(ScenarioFileError) -> ScenarioWait {
        ScenarioWait(
            until: try trigger(node), label: try options["label"]?.text("a label for the trace"),
            timeout: try timeout(options, ScenarioStep.waitTimeout), optional: try options["optional"]?.bool() ?? false)
    }

    static let triggerKinds: [(name: String, options: [String])] = [
        ("progress", ["at-least", "above"]), ("state", ["is", "in"]), ("segments-since-launch", []),
        ("segments", ["at-least"]), ("settled", []), ("any", []),
    ]

    /// A trigger: a mapping whose one trigger key names the kind.
    func trigger(_ node: ScenarioNode) throws(ScenarioFileError) -> ScenarioTrigger {
        let names = Self.triggerKinds.map(\.name)
        let entries = try node.entries("a trigger, e.g. {progress: clear, at-least: 0.25}")
        let kinds = entries.filter { names.contains($0.key) }
        guard kinds.count == 1, let kindEntry = kinds.first else {
            guard kinds.isEmpty else {
                throw node.error(.invalidValue, "a trigger has one kind; found \(kinds.map(\.key).joined(separator: " and ")); "
                    + "to wait for either, write any: [TRIGGER, TRIGGER]", at: kinds[1].keyNode)
            }
            let first = entries.first
            let near = first.flatMap { ScenarioNode.nearest($0.key, in: names) }.map { " Did you mean '\($0)'?" } ?? ""
            throw node.error(.unknownStep, "unknown trigger '\(first?.key ?? "")'.\(near) The triggers are "
                + names.joined(separator: ", "), at: first?.keyNode)
        }
        let allowed = Self.triggerKinds.first { $0.name == kindEntry.key }!.options
        for entry in entries where entry.key != kindEntry.key && !allowed.contains(entry.key) {
            throw node.unknownKey(entry.key, at: entry.keyNode, allowed: allowed, of: "a \(kindEntry.key) trigger")
        }
        let options = ScenarioOptions(owner: node, entries: entries.filter { $0.key != kindEntry.key }.map { ($0.key, $0.value) })
        let value = kindEntry.value
        switch kindEntry.key {
        case "progress":
            let fraction = "a fraction from 0 to 1, e.g. 0.25 or 25%"
            if let bound = options["at-least"], options["above"] == nil {
                return .progress(try download(value), .atLeast(try bound.number(fraction, in: 0...1, percent: true)))
            }
            guard let bound = options["above"], options["at-least"] == nil else {
                throw node.error(.missingKey, "a progress trigger takes one of at-least or above, e.g. {progress: clear, at-least: 0.25}")
            }
            return .progress(try download(value), .above(try bound.number(fraction, in: 0...1, percent: true)))
        case "state":
            let states = AppState.allCases.map { ($0.description, $0) }
            if let one = options["is"], options["in"] == nil { return .state(try download(value), [try one.choice(states, "state")]) }
            guard let list = options["in"], options["is"] == nil else {
                throw node.error(.missingKey, "a state trigger takes one of is: STATE or in: [STATE, …], e.g. {state: clear, is: failed}")
            }
            var chosen: [AppState] = []
            for item in try list.list("a list of states, e.g. [downloaded, failed]") { chosen.append(try item.choice(states, "state")) }
            return .state(try download(value), chosen)
        case "segments-since-launch":
            if case .scalar = value.node { return .segmentsSinceLaunch(.exactly(try value.int("a number of segments"))) }
            let bounds = try value.list("a number of segments or a range [LOW, HIGH] drawn with the seed")
            guard bounds.count == 2 else { throw value.error(.invalidValue, "a range is [LOW, HIGH], e.g. [2, 6]") }
            let low = try bounds[0].int("a number of segments"), high = try bounds[1].int("a number of segments")
            guard low <= high else { throw value.error(.invalidValue, "the range [\(low), \(high)] is empty; write [LOW, HIGH] with LOW <= HIGH") }
            return .segmentsSinceLaunch(.random(low...high))
        case "segments":
            let bound = try options.required("at-least", expecting: "a number of segments, e.g. {segments: clear, at-least: 2}")
            return .segments(try download(value), atLeast: try bound.int("a number of segments"))
        case "settled":
            return .settled(try downloads(value))
        default:
            let items = try value.list("a list of triggers")
            guard !items.isEmpty else { throw value.error(.invalidValue, "any needs at least one trigger") }
            var triggers: [ScenarioTrigger] = []
            for item in items { triggers.append(try trigger(item)) }
            return .any(triggers)
        }
    }

    /// `hold-until: MARK` with `plus`, `at-most`, `or-settled`.
    func holdUntil(_ node: ScenarioNode, _ options: ScenarioOptions) throws(ScenarioFileError) -> ScenarioHoldUntil {
        let mark = try node.text("the name of a mark made earlier")
        guard marks.contains(mark) else {
            throw node.error(.invalidValue, "no mark named '\(mark)' was made before this step; add - mark: \(mark) where "
                + "the time should start")
        }
        var hold = ScenarioHoldUntil(mark: mark)
        if let plus = options["plus"] {
            hold.plus = try plus.text(Units.durationExamples + " or profile-duration") == "profile-duration"
                ? .profileDuration : .duration(try plus.duration())
        }
        hold.atMost = try options["at-most"]?.duration()
        hold.orSettled = try options["or-settled"].map { n throws(ScenarioFileError) in try downloads(n) }
        return hold
    }
}
