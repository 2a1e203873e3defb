import ArgumentParser
import BenchCore
import BenchReports
import EngineAgent
import FixtureOrigin
import Foundation
import ResilienceHarness

/// `bench matrix`: several engines × several profiles, one conformance page.
struct MatrixCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "matrix",
        abstract: "Run the scenarios for several engines under several profiles and write one conformance matrix.",
        discussion: """
            Each --agent is NAME='COMMAND ARGS…' (any executable that speaks docs/app-protocol.md) or a \
            builtin: deadzone (Deadzone's engine), python (python3 examples/agents/python/agent.py), or a \
            deliberately misbehaving variant of Deadzone's engine, as misbehave:NAME or NAME. Every engine \
            runs every chosen scenario under every --profile; each run writes its own report directory \
            (<out>/<engine>--<profile>/), and the matrix is written beside them: matrix.html (rows scenario × \
            property, columns engine × profile, each cell linking to its run's report), matrix.json, junit.xml.
            With --shard i/n it plays only its part of the runs' scenarios (each scenario of each run is a unit); \
            `bench merge` joins the parts' directories into the whole matrix (docs/ci.md).
            Exit status: 0 once the matrix is written (it reports, it does not gate), 2 for bad input.
            Example: swift run bench matrix --agent deadzone --agent mine='python3 my_agent.py' --profile Profiles/flaky-wifi.yaml
            """
    )

    @Option(name: .customLong("agent"), help: ArgumentHelp("An engine: NAME='COMMAND …' or a builtin name (repeatable).", valueName: "engine"))
    var agents: [String] = []

    @Option(name: .customLong("profile"), help: "A network profile (YAML) (repeatable; default Profiles/flaky-wifi.yaml).")
    var profiles: [String] = []

    @Option(name: .customLong("scenario"), help: "Run only this scenario of Scenarios/ (repeatable; see `bench scenarios`).")
    var scenarios: [String] = []

    @Option(name: .customLong("scenario-file"), help: "Run this scenario file (repeatable; docs/scenario-format.md).")
    var scenarioFiles: [String] = []

    @Option(help: "The matrix's directory (default: Reports/<timestamp>-matrix/).")
    var out: String?

    @Option(help: "Seed of the runs' random choices (default: each profile's seed).")
    var seed: UInt64?

    @Option(name: .customLong("time-limit"), help: "Seconds one scenario may take before it is stopped and failed.")
    var timeLimit: Double = 240

    @Option(help: "How many scenarios of one run play at the same time (default: all, at most \(SuiteRun.defaultJobs); 1: one by one). The runs themselves go one after another.")
    var jobs: Int?

    @Option(name: .customLong("catalog"), help: ArgumentHelp(
        "A catalog directory `bench record` wrote, served beside the fixture videos; a --scenario-file may request its "
            + "streams by id (repeatable).", valueName: "DIR"))
    var catalogs: [String] = []

    @Flag(help: ArgumentHelp(
        "Serve every run's origins and license servers over HTTPS, with a certificate of a CA made for the matrix.",
        discussion: "The CA's certificate is written as ca.pem in the matrix's directory before the first run; each app is "
            + "told its path in hello's caFile and in DEADZONE_CA_FILE."))
    var https = false

    @OptionGroup var recordings: RecordingOptions

    @OptionGroup var sharding: ShardOptions

    /// The builtin engines' command lines, for a profile's seed (`SuiteRun.builtin`).
    static func builtin(_ name: String, seed: UInt64) -> AppCommandLine? {
        SuiteRun.builtin(name, seed: seed)
    }

    func run() async throws {
        guard !agents.isEmpty else { exitBadInput("give at least one --agent (e.g. --agent deadzone --agent mine='python3 my_agent.py')") }
        guard timeLimit > 0 else { exitBadInput("--time-limit must be a positive number of seconds") }
        if let jobs, jobs < 1 { exitBadInput("--jobs must be at least 1 (1 plays the scenarios one after another)") }
        let specs: [MatrixAgentSpec]
        do { specs = try agents.map { text throws(MatrixAgentSpecError) in try MatrixAgentSpec(parsing: text) } } catch {
            exitBadInput(error.description)
        }
        for spec in specs where spec.command == nil && Self.builtin(spec.name, seed: 0) == nil {
            exitBadInput("unknown engine \"\(spec.name)\"; builtins: \(SuiteRun.builtinNames); or NAME='COMMAND …'")
        }
        var entries: [MatrixEntry] = []
        var chosen: [Scenario] = []
        var recorded = RecordedContent()
        var interception: HarnessInterception?
        var substituted: [String: String] = [:]
        let directory = out ?? SummaryTable.defaultDirectory(profile: "matrix")
        for path in profiles.isEmpty ? ["Profiles/flaky-wifi.yaml"] : profiles {
            var suite = SuiteRun(
                profilePath: path, scenarioNames: scenarios, scenarioFiles: scenarioFiles, seed: seed,
                timeLimitSeconds: timeLimit, misbehavior: nil, progressOnStandardError: false)
            suite.catalogs = catalogs
            recordings.apply(to: &suite)
            suite.httpsDirectory = https ? directory : nil
            do {
                recorded = try suite.recorded()
                interception = try suite.interception(recorded: recorded)
                substituted = try suite.substitution(recorded: recorded).videos
            } catch { exitBadInput(error.description) }
            let profile: Profile
            do { profile = try suite.loadProfile(); chosen = try suite.scenarios() } catch { exitBadInput(error.description) }
            for spec in specs {
                let app = spec.command ?? Self.builtin(spec.name, seed: seed ?? profile.seed)!
                entries.append(MatrixEntry(agent: spec.name, app: app, profile: profile, profilePath: path))
            }
        }
        let shard: ShardRecord?
        do { shard = try shardRecord(entries, scenarios: chosen) } catch { exitBadInput(error.description) }
        var serving: HarnessHTTPS?
        if https {
            do { serving = try HarnessHTTPS.make(writingCAInto: directory) } catch { exitBadInput(error.description) }
        }
        if !recordings.videos.isEmpty { print("the scenarios play on recordings: \(recordings.videos.joined(separator: ", "))") }
        let printer = ProgressPrinter(toStandardError: false)
        let output = DescriptorWriter(descriptor: 1)
        let clock = ContinuousClock.now
        let limit = Duration.milliseconds(Int64(timeLimit * 1000))
        let matrix = try await MatrixRun.run(
            entries, scenarios: chosen, into: URL(fileURLWithPath: directory),
            options: { [recorded, interception, substituted, serving] entry in
                var options = HarnessOptions(
                    profile: entry.profile, profilePath: entry.profilePath, seed: seed ?? entry.profile.seed,
                    timeLimit: limit, app: entry.app, agentName: entry.agent, jobs: jobs ?? SuiteRun.defaultJobs)
                (options.recorded, options.interception, options.videos, options.https) =
                    (recorded, interception, substituted, serving)
                return options
            },
            shard: shard,
            started: { entry, index in
                output.write("== [\(index + 1)/\(entries.count)] \(entry.agent) under \(entry.profile.name): \(entry.app.description)\n")
            },
            progress: { printer.handle($0) })
        print("")
        for summary in matrix.summary { print(summary.line) }
        print(String(format: "\nmatrix: %@/%@ (%.0f s)", directory, MatrixHTML.fileName, (ContinuousClock.now - clock).seconds))
    }

    /// What the shards of one matrix must share beyond its engines and profiles: the
    /// recordings served and played, HTTPS, the hosts intercepted.
    private var variations: [String: String] {
        var fields: [String: String] = [:]
        if !catalogs.isEmpty { fields["catalogs"] = catalogs.joined(separator: " ") }
        if https { fields["https"] = "true" }
        recordings.identity(into: &fields)
        return fields
    }

    /// The record of `--shard` over every scenario of every run, or nil without it.
    private func shardRecord(_ entries: [MatrixEntry], scenarios: [Scenario]) throws(SuiteRun.BadInput) -> ShardRecord? {
        let keys = entries.flatMap { entry in scenarios.map { MatrixShard.key(run: entry.directoryName, scenario: $0.name) } }
        guard let (spec, plan) = try sharding.plan(keys: keys) else { return nil }
        guard Set(keys).count == keys.count else {
            throw SuiteRun.BadInput(description: "--shard splits each run's scenarios by name, and two units share one "
                + "(the same engine name under one profile, or two scenarios of one name); rename one")
        }
        let identity = ShardOptions.identity(command: "matrix", [
            "profile": (profiles.isEmpty ? ["Profiles/flaky-wifi.yaml"] : profiles).joined(separator: ", "),
            "seed": seed.map(String.init) ?? "each profile's", "agent": agents.joined(separator: ", "),
            "time-limit": String(timeLimit),
        ].merging(variations) { $1 })
        let record = plan.record(shard: spec.index, identity: identity)
        ShardOptions.announce(record)
        return record
    }
}
