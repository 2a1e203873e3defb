import ArgumentParser
import BenchCore
import BenchReports
import EngineAgent
import FixtureOrigin
import Foundation
import ResilienceHarness

/// What `bench` (run) and `bench gate` share: reading the profile and the scenario
/// names, running the harness with live progress, and writing the report files.
struct SuiteRun {
    var profilePath: String
    var scenarioNames: [String]
    var scenarioFiles: [String] = []
    var seed: UInt64?
    var timeLimitSeconds: Double
    var misbehavior: String?
    /// `--agent`: the app under test as one command line; nil for `bench agent`.
    var agentCommand: String? = nil
    var progressOnStandardError: Bool
    /// `--jobs`: the most scenarios played at once; nil for `defaultJobs` (all of a suite of up to 8).
    var jobs: Int? = nil
    static let defaultJobs = 8
    /// `--shard`: the part of the chosen scenarios this run plays, balanced by
    /// `shardSeconds` (by scenario name), and what its record shares with the other
    /// parts (`ShardRecord.identity`: the command, a gate's baseline).
    var shard: ShardSpec? = nil
    var shardSeconds: [String: Double] = [:]
    var shardIdentity: [String: String] = [:]
    /// `--launch`, `--kill`, `--agent-listen`.
    var launching: LaunchOptions? = nil
    /// `--https`: the run's output directory, where the run's CA certificate (`ca.pem`) is
    /// written before the first scenario; nil: the scenarios are served over plain HTTP.
    var httpsDirectory: String? = nil
    /// `--catalog`: directories `bench record` wrote, served beside the fixture videos.
    var catalogs: [String] = []
    /// `--intercept`, `--upstream-ca`: outside hosts whose recorded streams are fetched live.
    var intercept: [String] = []
    var upstreamCA: String? = nil
    /// `--video FIXTURE=RECORDED`: fixture videos whose scenarios play on a recorded stream.
    var videos: [String] = []

    /// Bad input: exit 2 with a message that says what to do.
    struct BadInput: Error, CustomStringConvertible {
        var description: String
    }

    /// The default report directory (`Reports/<timestamp>-<profile>`) from now, for a run
    /// that needs it before it plays (`--https` writes its CA there); the profile's file
    /// name when the profile cannot be read (the run then stops on it).
    func defaultDirectory() -> String {
        let name = (try? loadProfile().name) ?? ((profilePath as NSString).lastPathComponent as NSString).deletingPathExtension
        return SummaryTable.defaultDirectory(profile: name)
    }

    /// The profile, or a `BadInput` naming the file and the problem.
    func loadProfile() throws(BadInput) -> Profile {
        do { return try Profile.load(contentsOf: profilePath) } catch {
            throw BadInput(description: "\(error)")
        }
    }

    /// The scenarios named in Scenarios/ and the scenario files (all of Scenarios/ when
    /// none), or a `BadInput` naming the file and line, or listing the known names.
    func scenarios() throws(BadInput) -> [Scenario] {
        let content = try recorded()
        let substitution = try substitution(recorded: content)
        do {
            return try ScenarioSuite.chosen(
                names: scenarioNames, files: scenarioFiles, recordedVideos: Set(content.streams.map(\.video.id)),
                substitution: substitution)
        } catch {
            throw BadInput(description: "\(error)")
        }
    }

    /// `--video`'s mappings over `recorded` (none without `--video`; with `--catalog` it
    /// still refuses a scenario that downloads two recorded streams sharing a media
    /// file's bytes), the streams fetched live (`--intercept`) marked, or a `BadInput`
    /// saying what to do.
    func substitution(recorded: RecordedContent) throws(BadInput) -> VideoSubstitution {
        guard !videos.isEmpty || !catalogs.isEmpty else { return VideoSubstitution() }
        guard !catalogs.isEmpty else {
            throw BadInput(description: "--video plays fixture videos' scenarios on recorded streams: give the catalog "
                + "they were recorded into with --catalog DIR (bench record URL --out DIR)")
        }
        var content = recorded
        if !intercept.isEmpty {
            content.liveFrom = intercept.compactMap { try? InterceptRule(parsing: $0) }
        }
        do { return try VideoSubstitution(parsing: videos, recorded: content) } catch {
            throw BadInput(description: error.description)
        }
    }

    /// The recorded streams of `catalogs` (none when none is given), or a `BadInput`
    /// saying what to do.
    func recorded() throws(BadInput) -> RecordedContent {
        guard !catalogs.isEmpty else { return RecordedContent() }
        do { return try RecordedContent.load(catalogs, reservedIDs: Set(ScenarioFile.fixtureVideos)) } catch {
            throw BadInput(description: "--catalog: \(error)")
        }
    }

    /// `--intercept`'s hosts, each checked: the run serves HTTPS (its CA signs the
    /// certificates minted for them) and some recorded stream came from it (else nothing
    /// would be fetched through it); nil without `--intercept`.
    func interception(recorded: RecordedContent) throws(BadInput) -> HarnessInterception? {
        guard !intercept.isEmpty else {
            if upstreamCA != nil { throw BadInput(description: "--upstream-ca concerns interception: give --intercept HOST") }
            return nil
        }
        guard httpsDirectory != nil else {
            throw BadInput(description: "--intercept needs --https: the app must trust the run's CA (ca.pem), which signs "
                + "the certificates the intercepting proxy answers with")
        }
        if let upstreamCA, !FileManager.default.isReadableFile(atPath: upstreamCA) {
            throw BadInput(description: "--upstream-ca \(upstreamCA): no readable file there")
        }
        var rules: [InterceptRule] = []
        for text in intercept {
            do { rules.append(try InterceptRule(parsing: text)) } catch { throw BadInput(description: error.description) }
        }
        for rule in rules {
            var live = recorded
            live.liveFrom = [rule]
            guard recorded.streams.contains(where: live.isLive) else {
                throw BadInput(description: "--intercept \(rule): no stream of --catalog was recorded from it, so nothing "
                    + "would be fetched through it (record one with bench record, and give its catalog)")
            }
        }
        return HarnessInterception(rules: rules, upstreamCAFile: upstreamCA)
    }

    /// Runs the chosen scenarios under the profile with live progress.
    func run() async throws(BadInput) -> HarnessRun {
        let profile = try loadProfile()
        var scenarios = try scenarios()
        var options = try harnessOptions(profile: profile, seed: seed ?? profile.seed)
        options.recorded = try recorded()
        options.interception = try interception(recorded: options.recorded)
        options.videos = try substitution(recorded: options.recorded).videos
        options.launch = try launching?.appLaunch(app: options.app, agentGiven: agentCommand != nil || misbehavior != nil)
        if let httpsDirectory {
            do { options.https = try HarnessHTTPS.make(writingCAInto: httpsDirectory) } catch {
                throw BadInput(description: error.description)
            }
        }
        // The listener is the run's: its accept thread and port end with the run.
        defer { options.launch?.listener?.close() }
        if shard != nil, Set(scenarios.map(\.name)).count != scenarios.count {
            throw BadInput(description: "--shard splits scenarios by name, and two of those chosen share one; rename one")
        }
        let record = shard.map { shardRecord(of: scenarios, spec: $0, profile: profile, seed: options.seed) }
        if let record {
            let whole = scenarios
            scenarios = whole.filter { record.units.contains($0.name) }
            options.seedOffsets = Dictionary(whole.enumerated().map { ($1.name, $0) }) { a, _ in a }
            ShardOptions.announce(record)
        }
        let printer = ProgressPrinter(toStandardError: progressOnStandardError)
        let output = DescriptorWriter(descriptor: progressOnStandardError ? 2 : 1)
        let mapped = videos.isEmpty ? "" : ", on recordings: \(videos.joined(separator: ", "))"
        output.write("Deadzone \(DeadzoneVersion.current): \(scenarios.count) scenario\(scenarios.count == 1 ? "" : "s") under \(profile.name) (seed \(options.seed))\(record.map { ", shard \($0.spec)" } ?? "")\(mapped)\n")
        var run = await HarnessRunner.run(scenarios, options: options) { printer.handle($0) }
        run.report.run.shard = record
        return run
    }

    /// The record of shard `spec` of `scenarios` (the whole, in order): the plan balanced
    /// by `shardSeconds`, and the identity every part shares.
    private func shardRecord(of scenarios: [Scenario], spec: ShardSpec, profile: Profile, seed: UInt64) -> ShardRecord {
        let plan = ShardPlan(
            units: scenarios.map { ShardUnit(key: $0.name, seconds: shardSeconds[$0.name]) }, count: spec.count)
        let identity = [
            "profile": "\(profile.name) (\(profilePath))", "seed": String(seed), "agent": agentName,
            "time-limit": String(timeLimitSeconds),
        ].merging(shardIdentity) { $1 }
        return plan.record(shard: spec.index, identity: ShardOptions.identity(command: shardIdentity["command"] ?? "run", identity))
    }

    /// The harness's options for a run of `profile` with `seed` (the app under test is
    /// seeded with it too), or a `BadInput` for an unknown misbehaviour, a bad --agent or
    /// time limit.
    func harnessOptions(profile: Profile, seed: UInt64) throws(BadInput) -> HarnessOptions {
        let agentMisbehavior = misbehavior.flatMap(AgentMisbehavior.init(rawValue:))
        if let misbehavior, agentMisbehavior == nil {
            throw BadInput(description: "unknown misbehaviour \"\(misbehavior)\"; known: \(AgentMisbehavior.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard timeLimitSeconds > 0 else { throw BadInput(description: "--time-limit must be a positive number of seconds") }
        guard (jobs ?? 1) >= 1 else { throw BadInput(description: "--jobs must be at least 1 (1 plays the scenarios one after another)") }
        let app = try appCommandLine(deadzone: AgentOptions(stallTimeout: Self.stallTimeout, seed: seed, misbehavior: agentMisbehavior))
        return HarnessOptions(
            profile: profile, profilePath: profilePath, seed: seed, timeLimit: .milliseconds(Int64(timeLimitSeconds * 1000)),
            app: app, stallTimeout: Self.stallTimeout, agentName: agentName, jobs: jobs ?? Self.defaultJobs)
    }

    /// How reports and baselines name the app under test: `deadzone`, `deadzone
    /// --misbehave NAME`, `python`, or the `--agent` command line as given.
    var agentName: String {
        if let agentCommand {
            if let variant = Self.builtinMisbehavior(agentCommand) { return "deadzone --misbehave \(variant.rawValue)" }
            if agentCommand != "deadzone" { return agentCommand }
        }
        if let launch = launching?.launch { return launch }
        return misbehavior.map { "deadzone --misbehave \($0)" } ?? "deadzone"
    }

    /// The app under test: `--agent`'s command line or builtin name, else Deadzone's
    /// engine (`bench agent`).
    private func appCommandLine(deadzone: AgentOptions) throws(BadInput) -> AppCommandLine {
        guard let agentCommand, agentCommand != "deadzone" else {
            return Self.deadzone(deadzone)
        }
        if misbehavior != nil {
            throw BadInput(description: "--misbehave runs Deadzone's own engine and cannot be combined with --agent "
                + "\(agentCommand) (--agent deadzone, or --agent NAME for a misbehaviour, is the same engine)")
        }
        if let builtin = Self.builtin(agentCommand, seed: deadzone.seed) { return builtin }
        do { return try AppCommandLine(parsing: agentCommand) } catch { throw BadInput(description: error.description) }
    }

    /// The builtin engines `--agent` (and `bench matrix --agent`) names: `deadzone`
    /// (Deadzone's engine, `bench agent`), `python` (the example engine,
    /// `python3 examples/agents/python/agent.py`, run from the repository root) and each
    /// misbehaviour, as `NAME` or `misbehave:NAME` (Deadzone's engine misbehaving). Nil
    /// for anything else, which is a command line.
    static func builtin(_ name: String, seed: UInt64) -> AppCommandLine? {
        if name == "python" { return AppCommandLine(executable: "python3", arguments: ["examples/agents/python/agent.py"]) }
        if name == "deadzone" { return deadzone(AgentOptions(stallTimeout: stallTimeout, seed: seed)) }
        guard let misbehavior = builtinMisbehavior(name) else { return nil }
        return deadzone(AgentOptions(stallTimeout: stallTimeout, seed: seed, misbehavior: misbehavior))
    }

    /// The misbehaviour a builtin name stands for (`NAME` or `misbehave:NAME`), if any.
    static func builtinMisbehavior(_ name: String) -> AgentMisbehavior? {
        AgentMisbehavior(rawValue: name.hasPrefix("misbehave:") ? String(name.dropFirst("misbehave:".count)) : name)
    }

    /// The builtin names, for error messages and help.
    static var builtinNames: String {
        "deadzone, python, " + AgentMisbehavior.allCases.map(\.rawValue).joined(separator: ", ")
    }

    /// Writes report.json, report.html, junit.xml and trace.jsonl into `directory`.
    static func write(
        _ run: HarnessRun, comparison: GateComparison?, baselineNote: String? = nil, to directory: String
    ) throws -> ReportFiles {
        try ReportWriter().write(
            run.report, trace: run.trace, comparison: comparison, baselineNote: baselineNote,
            to: URL(fileURLWithPath: directory))
    }

    /// The stall timeout Deadzone's engine runs with under the harness, and the harness
    /// judges liveness by (4 s: `HarnessOptions`' default).
    static let stallTimeout = Duration.seconds(4)

    /// Deadzone's engine as the app under test: this executable's `bench agent` with `options`.
    static func deadzone(_ options: AgentOptions) -> AppCommandLine {
        AppCommandLine(executable: executablePath(), arguments: options.benchArguments)
    }

    /// This executable, for the agent child processes: its path, or `/proc/self/exe` itself
    /// once the file was replaced under the running process (a rebuild: the link then names
    /// a "(deleted)" path, while the running image can still be executed through it).
    static func executablePath() -> String {
        let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        if let target, FileManager.default.isExecutableFile(atPath: target) { return target }
        return target == nil ? CommandLine.arguments[0] : "/proc/self/exe"
    }
}

/// Prints `message` on stderr and exits 2 (bad input).
func exitBadInput(_ message: String) -> Never { exitWithError(message, code: 2) }

/// Prints `error: message` on stderr and exits with `code`.
func exitWithError(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.writeSurvivingSignals(Data("error: \(message)\n".utf8))
    exit(code)
}
