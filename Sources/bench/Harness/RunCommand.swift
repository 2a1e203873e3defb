import ArgumentParser
import BenchCore
import BenchReports
import Foundation
import ResilienceHarness

/// `bench` / `bench run`: the scenario suite under a profile, with reports.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the resilience scenarios under a network profile and write the reports.",
        discussion: """
            Starts a fixture origin and a link conditioner with the profile's WiFi and cellular links, \
            launches the download engine in a child process (`bench agent`), and runs each scenario: the \
            harness plays the network, the app lifecycle, crashes and the user, then judges every property \
            over the recorded trace. Writes report.json, report.html, junit.xml and trace.jsonl.
            A scenario that needs a capability the app's hello does not declare is not played and is \
            reported "unsupported: <capability>" (never passed); it does not change the exit status, \
            unless no scenario at all was played. An app that breaks the protocol (docs/app-protocol.md) \
            ends its scenario with a "protocol error: …" and fails the run.
            Exit status: 0 when every property of every scenario played holds, 1 when one fails (or a \
            scenario erred, or none was played), 2 for bad input.
            With --shard i/n it plays only its part of the scenarios (docs/ci.md); `bench merge` joins the parts.
            Example: swift run bench --profile Profiles/subway-commute.yaml
            """
    )

    @Option(help: "The network profile (YAML), e.g. Profiles/subway-commute.yaml.")
    var profile: String

    @OptionGroup var options: SuiteOptions

    @Option(help: ArgumentHelp(
        "Compare with this baseline file in the HTML report (the gate fails on regressions; run does not).",
        discussion: "Default: Reports/baseline.json when it exists and was made with the same profile."))
    var baseline: String?

    @Option(help: ArgumentHelp("Run a deliberately misbehaving agent, to see the harness catch it.", visibility: .hidden))
    var misbehave: String?

    @Flag(help: "Print the report as JSON on stdout (progress goes to stderr).")
    var json = false

    @OptionGroup var sharding: ShardOptions

    func run() async throws {
        let partial = !(options.scenarios + options.scenarioFiles).isEmpty
        var suite = SuiteRun(
            profilePath: profile, scenarioNames: options.scenarios, scenarioFiles: options.scenarioFiles, seed: options.seed,
            timeLimitSeconds: options.timeLimit, misbehavior: misbehave, agentCommand: options.agent, progressOnStandardError: json,
            jobs: options.jobs)
        suite.launching = options.launching
        suite.catalogs = options.catalogs
        options.recordings.apply(to: &suite)
        let early = options.https ? options.out ?? suite.defaultDirectory() : nil
        suite.httpsDirectory = early
        do {
            (suite.shard, suite.shardSeconds) = (try sharding.spec(), try sharding.measuredSeconds())
        } catch { exitBadInput(error.description) }
        suite.shardIdentity = ["command": "run", "partial": String(partial)]
        if options.https { suite.shardIdentity["https"] = "true" }
        options.recordings.identity(into: &suite.shardIdentity)
        let result: HarnessRun
        do { result = try await suite.run() } catch { exitBadInput(error.description) }
        let (comparison, note, warning) = GateComparison.forRun(
            result.report, baselinePath: baseline, partial: partial || suite.shard != nil)
        if let warning { FileHandle.standardError.writeSurvivingSignals(Data("warning: \(warning)\n".utf8)) }
        let directory = early ?? options.out ?? SummaryTable.defaultDirectory(profile: result.report.run.profile)
        let files = try SuiteRun.write(result, comparison: comparison, baselineNote: note, to: directory)
        if json {
            FileHandle.standardOutput.writeSurvivingSignals(try ReportJSON.encode(result.report))
            FileHandle.standardOutput.writeSurvivingSignals(Data("\n".utf8))
        } else {
            print("\n" + SummaryTable.render(result.report))
            print("\nreport: \(files.reportHTML.path)")
        }
        if let shard = result.report.run.shard, shard.units.isEmpty {
            FileHandle.standardError.writeSurvivingSignals(Data((ShardOptions.nothingToPlay(shard) + "\n").utf8))
            return
        }
        if !result.report.passed { throw ExitCode(1) }
    }
}

/// The options `bench` (run) and `bench gate` share.
struct SuiteOptions: ParsableArguments {
    @Option(name: .customLong("scenario"), help: "Run only this scenario of Scenarios/ (repeatable; see `bench scenarios`).")
    var scenarios: [String] = []

    @Option(name: .customLong("scenario-file"), help: "Run this scenario file (repeatable; docs/scenario-format.md).")
    var scenarioFiles: [String] = []

    @Option(help: "Seed of the run's random choices (default: the profile's seed).")
    var seed: UInt64?

    @Option(help: "Report directory (default: Reports/<timestamp>-<profile>/).")
    var out: String?

    @Option(name: .customLong("time-limit"), help: "Seconds one scenario may take before it is stopped and failed.")
    var timeLimit: Double = 240

    @Option(help: "How many scenarios play at the same time (default: all, at most \(SuiteRun.defaultJobs); 1: one by one).")
    var jobs: Int?

    @Option(help: ArgumentHelp(
        "The app under test: a builtin name, or one shell-quoted command line (default: deadzone, Deadzone's own engine).",
        discussion: "Builtins, as in bench matrix: deadzone (`bench agent`), python (python3 examples/agents/python/agent.py, from the repository root) and each misbehaving variant of Deadzone's engine by its name (e.g. fail-on-outage; `bench agent --help` lists them). Anything else is a command line: any executable that speaks the app protocol (docs/app-protocol.md) on stdin/stdout, e.g. --agent 'python3 my_agent.py'. It is started again after every kill.",
        valueName: "command"))
    var agent: String?

    @Flag(help: ArgumentHelp(
        "Serve each scenario's origin and license server over HTTPS, with a certificate of a CA made for the run.",
        discussion: "The CA's certificate is written as ca.pem in the report directory before the first scenario starts; the app is told its path in hello's caFile and in DEADZONE_CA_FILE, and the URLs it is given are https://. Requests still go through the conditioner's interfaces."))
    var https = false

    @Option(name: .customLong("catalog"), help: ArgumentHelp(
        "A catalog directory `bench record` wrote: its streams are served by every scenario's origin beside the fixture "
            + "videos, and a --scenario-file may request them by id (repeatable; docs/your-streams.md).", valueName: "DIR"))
    var catalogs: [String] = []

    @OptionGroup var recordings: RecordingOptions

    @OptionGroup var launching: LaunchOptions
}
