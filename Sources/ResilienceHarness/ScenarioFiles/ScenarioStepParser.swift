import AppProtocol
import BenchCore
import FixtureOrigin
import LinkConditioner
import Yams

/// Reads the `steps` list: each step is a bare kind (`- launch`) or a mapping whose one
/// step key names the kind and holds its argument, beside that kind's options
/// (`- down: wifi` with `mode: blackhole`). Checks, in order, that every download a step
/// names was requested before it and every mark it names was made before it.
struct ScenarioStepParser {
    let parser: ScenarioFileParser
    /// Downloads requested so far (by name), and the videos a `request-spare` may take.
    var requested: [String] = []
    var spares: [String: Int] = [:]
    var marks: [String] = []

    init(parser: ScenarioFileParser) {
        self.parser = parser
    }

    /// Every step kind with the options it takes; `bare` kinds take no argument.
    static let kinds: [(name: String, options: [String], bare: Bool)] = [
        ("up", ["path-update"], false), ("down", ["mode", "path-update"], false), ("cut", ["mode"], false),
        ("wait-for-path", ["timeout"], false),
        ("slow-license-server", [], false), ("origin-fault", ["path", "for", "count", "probability"], false),
        ("launch", [], true), ("foreground", [], true), ("background", [], true),
        ("prepare-for-background", [], true), ("kill", ["in-foreground"], false),
        ("request", ["as", "rental-seconds", "allows-cellular"], false), ("pause", ["if-in-flight"], false),
        ("resume", ["if-in-flight"], false), ("cancel", ["if-in-flight"], false), ("delete", [], false),
        ("set-allows-cellular", [], false), ("request-spare", ["segments"], false),
        ("cancel-if-unsettled", [], false), ("wait", ["label", "timeout", "optional"], false),
        ("wait-settled", ["timeout"], false), ("wait-for-media-response", ["timeout"], true),
        ("wait-for-request", ["timeout"], false), ("hold", [], false),
        ("mark", [], false), ("hold-until", ["plus", "at-most", "or-settled"], false), ("note", [], false),
        ("inspect", [], false),
    ]

    /// The catalog's video ids a `request` may name.
    static let videos = ScenarioNetwork.videos(CatalogConfiguration()).map(\.id)

    mutating func steps(_ node: ScenarioNode) throws(ScenarioFileError) -> [ScenarioStep] {
        let items = try node.list("a list of steps, each starting with -")
        guard !items.isEmpty else { throw node.error(.invalidValue, "a scenario needs at least one step") }
        var steps: [ScenarioStep] = []
        for item in items { steps.append(try step(item)) }
        return steps
    }

    private mutating func step(_ item: ScenarioNode) throws(ScenarioFileError) -> ScenarioStep {
        let names = Self.kinds.map(\.name)
        if case .scalar = item.node {
            let name = try item.text("a step")
            guard let kind = Self.kinds.first(where: { $0.name == name }) else { throw unknownStep(name, at: item, keyNode: item.node) }
            guard kind.bare else { throw item.error(.wrongType, "\(name) needs a value; write \(name): \(Self.example(name))") }
            return try build(name, argument: nil, options: ScenarioOptions(owner: item, entries: []), item: item)
        }
        let entries = try item.entries("a step: a kind like launch, or a mapping like {up: wifi}")
        let kindEntries = entries.filter { names.contains($0.key) }
        guard let kindEntry = kindEntries.first else {
            guard let first = entries.first else { throw item.error(.invalidValue, "an empty step; write a kind like launch") }
            throw unknownStep(first.key, at: item, keyNode: first.keyNode)
        }
        if kindEntries.count > 1 {
            throw item.error(.invalidValue, "one step has two kinds, \(kindEntries[0].key) and \(kindEntries[1].key); "
                + "make each its own list item (start the second with -)", at: kindEntries[1].keyNode)
        }
        let kind = Self.kinds.first { $0.name == kindEntry.key }!
        var options: [(key: String, value: ScenarioNode)] = []
        for entry in entries where entry.key != kind.name {
            guard kind.options.contains(entry.key) else {
                throw item.unknownKey(entry.key, at: entry.keyNode, allowed: kind.options, of: "a \(kind.name) step")
            }
            options.append((entry.key, entry.value))
        }
        let argument = kindEntry.value.isNull ? nil : kindEntry.value
        if kind.bare, let argument { throw argument.error(.wrongType, "\(kind.name) takes no value; write - \(kind.name)") }
        if !kind.bare, argument == nil {
            throw kindEntry.value.error(.missingKey, "\(kind.name) needs a value; write \(kind.name): \(Self.example(kind.name))")
        }
        return try build(kind.name, argument: argument, options: ScenarioOptions(owner: kindEntry.value, entries: options), item: item)
    }

    private func unknownStep(_ name: String, at item: ScenarioNode, keyNode: Node) -> ScenarioFileError {
        let names = Self.kinds.map(\.name)
        let near = ScenarioNode.nearest(name, in: names).map { " Did you mean '\($0)'?" } ?? ""
        return item.error(.unknownStep, "unknown step '\(name)'.\(near) The steps are \(names.joined(separator: ", ")) "
            + "(docs/scenario-format.md)", at: keyNode)
    }

    /// An example value for the error that says a kind needs one.
    static func example(_ kind: String) -> String {
        switch kind {
        case "up", "down", "cut": "wifi"
        case "wait-for-path": "[wifi]"
        case "slow-license-server", "hold": "1.5s"
        case "kill": "crash"
        case "request", "request-spare": "clear"
        case "set-allows-cellular": "true"
        case "origin-fault": "{status: 503}"
        case "wait": "{progress: clear, at-least: 0.25}"
        case "wait-settled", "inspect": "all"
        case "wait-for-request": "/videos/clear/**"
        case "mark", "hold-until": "NAME"
        case "note": "TEXT"
        default: "NAME (a download's name)"
        }
    }

    /// The step of kind `name`. `a`, its value, is nil only for a bare kind (`step`
    /// refuses a kind that needs a value without one), so the kinds that read it unwrap it.
    private mutating func build(
        _ name: String, argument a: ScenarioNode?, options: ScenarioOptions, item: ScenarioNode
    ) throws(ScenarioFileError) -> ScenarioStep {
        let interfaces = ScenarioFileParser.interfaces
        switch name {
        case "up":
            return .up(try a!.choice(interfaces, "interface"), pathUpdate: try pathUpdate(options["path-update"]))
        case "down":
            let mode = try options["mode"].map { n throws(ScenarioFileError) in
                try n.choice(DownMode.allCases.map { ($0.rawValue, $0) }, "down mode")
            } ?? .reset
            return .down(try a!.choice(interfaces, "interface"), mode: mode, pathUpdate: try pathUpdate(options["path-update"]))
        case "cut":
            let mode = try options["mode"].map { n throws(ScenarioFileError) in
                try n.choice(ConnectionCut.allCases.map { ($0.rawValue, $0) }, "cut mode")
            } ?? .reset
            return .cut(try a!.choice(interfaces, "interface"), mode)
        case "wait-for-path":
            var kinds: [InterfaceKind] = []
            for item in try a!.list("a list of interfaces, e.g. [wifi, cellular] or []") {
                kinds.append(try item.choice(interfaces, "interface"))
            }
            return .waitForPath(kinds, timeout: try timeout(options, ScenarioStep.pathTimeout))
        case "slow-license-server": return .slowLicenseServer(try a!.duration())
        case "origin-fault": return .originFault(try originFault(a!, options))
        case "launch": return .launch
        case "foreground": return .foreground
        case "background": return .background
        case "prepare-for-background": return .prepareForBackground
        case "kill":
            return .kill(try a!.choice(ScenarioFileParser.relaunchKinds, "kill kind"), inForeground: try options["in-foreground"]?.bool())
        case "request": return .request(try request(a!, options))
        case "pause", "resume", "cancel", "delete":
            let action = UserAction(rawValue: name)!, download = try download(a!)
            let onlyInFlight = try options["if-in-flight"]?.bool() == true
            return onlyInFlight ? .userIfInFlight(action, download: download) : .user(action, download: download)
        case "set-allows-cellular": return .setAllowsCellular(try a!.bool())
        case "request-spare":
            let videos = try a!.names("a list of catalog videos, e.g. [large, large-b]")
            for video in videos where !knownVideos.contains(video) { throw unknownVideo(video, at: a!) }
            for video in videos where spares[video] == nil { spares[video] = a!.node.mark?.line ?? 0 }
            let segments = try options["segments"]?.int("a number of segments, at least 1", in: 1...Int.max) ?? 2
            return .requestSpare(videos, segments: segments)
        case "cancel-if-unsettled": return .cancelIfUnsettled(try download(a!))
        case "wait": return .wait(try wait(a!, options))
        case "wait-settled": return .waitSettled(try downloads(a!), timeout: try timeout(options, ScenarioStep.settleTimeout))
        case "wait-for-media-response": return .waitForMediaResponse(timeout: try timeout(options, ScenarioStep.mediaResponseTimeout))
        case "wait-for-request":
            let glob = try a!.text("a path glob, e.g. /videos/clear/** or /license")
            guard Self.isPathGlob(glob) else {
                throw a!.error(.invalidValue, "a path glob starts with / (or is {/A,/B}), e.g. /videos/clear/**")
            }
            return .waitForRequest(glob, timeout: try timeout(options, ScenarioStep.requestTimeout))
        case "hold": return .hold(try a!.duration())
        case "mark":
            let mark = try a!.text("a name for this instant")
            if marks.contains(mark) { throw a!.error(.invalidValue, "the mark '\(mark)' was already made; give this one another name") }
            marks.append(mark)
            return .mark(mark)
        case "hold-until": return .holdUntil(try holdUntil(a!, options))
        case "note": return .note(try a!.text("the note's text"))
        default: return .inspect(try downloads(a!))
        }
    }
}
