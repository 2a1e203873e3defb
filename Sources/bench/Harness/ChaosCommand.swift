import ArgumentParser
import BenchCore
import BenchReports
import FixtureOrigin
import Foundation
import ResilienceHarness

/// `bench chaos`: seeded random scenarios, each failing one shrunk to a minimal file.
struct ChaosCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chaos",
        abstract: "Run seeded random scenarios and shrink each failing one to a minimal scenario file.",
        discussion: """
            Per seed: a random scenario (the same for the same seed and profile) written to DIR/seed-N.yaml, run, \
            its reports in DIR/seed-N/, and one line: verdict, wall time, the properties exercised, the commands \
            that reproduce it. A failing seed is shrunk (delta debugging, each candidate run) to the fewest steps \
            that still fail the same property: DIR/seed-N.min.yaml. Exit status: 0 when every seed passed, 1 when \
            one failed, 2 for bad input. Example: swift run bench chaos --seeds 1..10 --profile Profiles/flaky-wifi.yaml

            With --guided the seeds come first; then the campaign keeps every input whose run created a situation \
            pair (docs/situations.md) no earlier run had, and plays mutants of those (DIR/mutant-K.yaml), with a \
            fresh seed every fourth input, printing coverage as it grows, until --goal meaningful pairs are \
            reached, or --runs inputs or --time-budget are spent. Every campaign writes DIR/coverage.json. \
            Example: swift run bench chaos --seeds 1..4 --guided --goal all --time-budget 20m --jobs 2

            With --shard i/n it plays only its part of the seeds (balanced by --durations, an earlier campaign's \
            directory); guided, each shard draws fresh seeds of its own (the i-th of every n) and --runs is shared out \
            among the shards. `bench merge` joins the shards' directories (docs/ci.md).

            With --catalog DIR (repeatable) every input's origin serves the streams `bench record` copied there, and \
            every generated scenario requests one of them (its first request) beside the fixture videos; the commands \
            printed carry the --catalog options. Example: swift run bench chaos --seeds 1..5 --catalog Catalogs/mine
            """
    )

    @Option(help: "The seeds: one (7), a range (1..10) or a list (3,9,12).") var seeds: String
    @Option(help: "The network profile (YAML).") var profile = "Profiles/flaky-wifi.yaml"
    @Option(help: ArgumentHelp(
        "The app under test: a builtin (deadzone, python, a misbehaviour's name) or one shell-quoted command line (default: deadzone).",
        valueName: "command"))
    var agent: String?
    @Option(help: "A deliberately misbehaving variant of Deadzone's engine (`bench agent --help`).") var misbehave: String?
    @Option(help: "Directory of scenario files and reports (default: Reports/<timestamp>-chaos-<profile>/).") var out: String?
    @Option(help: "The most harness runs shrinking one failing seed may take (0: no shrinking).") var shrinkRuns = 40
    @Option(help: "The most time shrinking one failing seed may take, e.g. 10m.") var shrinkTime = "10m"
    @Option(help: "How many seeds play at the same time (shrinking plays one run at a time).") var jobs = 1
    @Flag(help: "Start no new seed once one has failed; shrink the lowest failing seed.") var stopAtFirstFailure = false
    @Flag(help: "After the seeds, seek situation pairs not yet created: mutate the inputs that reached new ones.")
    var guided = false
    @Option(help: "With --guided: stop once this many meaningful pairs are reached (a number, or all).") var goal: String?
    @Option(help: "With --guided: the most inputs the campaign starts, seeds included (default 200).") var runs: Int?
    @Option(help: "With --guided: start no input after this long, e.g. 20m (default 30m).") var timeBudget: String?
    @Option(name: .customLong("catalog"), help: ArgumentHelp(
        "A catalog directory `bench record` wrote: its streams are served by every input's origin, and every generated "
            + "scenario requests one of them beside the fixture videos (repeatable; docs/your-streams.md).", valueName: "DIR"))
    var catalogs: [String] = []
    @Flag(help: "Serve every input's origin and license server over HTTPS, with a CA made for the campaign (DIR/ca.pem).")
    var https = false
    @OptionGroup var recordings: RecordingOptions
    @OptionGroup var sharding: ShardOptions

    func run() async throws {
        var suite = SuiteRun(
            profilePath: profile, scenarioNames: [], timeLimitSeconds: 240, misbehavior: misbehave, agentCommand: agent,
            progressOnStandardError: false, catalogs: catalogs)
        recordings.apply(to: &suite)
        let chosen: [UInt64], loaded: Profile, budget: Duration, guidance: ChaosGuidance?, recorded: RecordedContent
        let substitution: VideoSubstitution, interception: HarnessInterception?
        do {
            (chosen, loaded, recorded) = (try ChaosSeeds.parse(seeds), try suite.loadProfile(), try suite.recorded())
            suite.httpsDirectory = https ? out ?? SummaryTable.defaultDirectory(profile: "chaos-\(loaded.name)") : nil
            (substitution, interception) = (try suite.substitution(recorded: recorded), try suite.interception(recorded: recorded))
            _ = try suite.harnessOptions(profile: loaded, seed: 0)
            budget = try ChaosSeeds.shrinkTime(shrinkTime, runs: shrinkRuns)
            guidance = try ChaosSeeds.guidance(
                guided: guided, goal: goal, runs: runs, timeBudget: timeBudget, meaningfulPairs: SituationModel.meaningful.count)
        } catch { exitBadInput("\(error)") }
        guard jobs >= 1 else { exitBadInput("--jobs must be at least 1 (1 plays the seeds one after another)") }
        var shardGuidance = guidance
        let shard: ShardRecord?
        do { shard = try shardRecord(seeds: chosen, guidance: &shardGuidance, suite: suite) } catch { exitBadInput(error.description) }
        let directory = suite.httpsDirectory ?? out ?? SummaryTable.defaultDirectory(profile: "chaos-\(loaded.name)")
        var serving: HarnessHTTPS?
        if https {
            do { serving = try HarnessHTTPS.make(writingCAInto: directory) } catch { exitBadInput(error.description) }
        }
        var options = ChaosOptions(
            seeds: shard.map { record in chosen.filter { record.units.contains(ChaosGuide.seedLabel($0)) } } ?? chosen, profile: loaded, profilePath: profile,
            directory: directory, appArguments: appArguments, shrinkRuns: shrinkRuns, shrinkTime: budget
        ) { [suite, serving, interception] seed in
            var harness = try suite.harnessOptions(profile: loaded, seed: seed)
            (harness.https, harness.interception) = (serving, interception)
            return harness
        }
        options.substitution = substitution
        (options.jobs, options.stopAtFirstFailure, options.guidance) = (jobs, stopAtFirstFailure, shardGuidance)
        (options.invocation, options.shard, options.agentName) = (BenchInvocation.current, shard, suite.agentName)
        (options.recorded, options.catalogs) = (recorded, catalogs)
        let output = DescriptorWriter(descriptor: 1)
        let result = try await ChaosRunner.run(options, writeReports: { _ = try SuiteRun.write($0, comparison: nil, to: $1) }) {
            output.write($0 + "\n")
        }
        if let shard, result.seeds.isEmpty, shard.units.isEmpty { return print(ShardOptions.nothingToPlay(shard)) }
        if !result.passed { throw ExitCode(1) }
    }

    /// The options a rerun (`bench chaos`) and a replay (`bench`) of an input need to be
    /// played as it was: the app, then HTTPS, interception and the recordings played
    /// (`--catalog` is added by the commands themselves).
    private var appArguments: [String] {
        var arguments = (agent.map { ["--agent", $0] } ?? []) + (misbehave.map { ["--misbehave", $0] } ?? [])
        if https { arguments.append("--https") }
        return arguments + recordings.arguments
    }

    /// The record of `--shard` over `seeds`, or nil without it; a guided campaign's
    /// fresh seeds and its share of --runs are narrowed to the shard in `guidance`.
    private func shardRecord(
        seeds: [UInt64], guidance: inout ChaosGuidance?, suite: SuiteRun
    ) throws(SuiteRun.BadInput) -> ShardRecord? {
        guard let (spec, plan) = try sharding.plan(keys: seeds.map(ChaosGuide.seedLabel)) else { return nil }
        guard Set(seeds).count == seeds.count else {
            throw SuiteRun.BadInput(description: "--shard splits the seeds, and --seeds names one twice")
        }
        if var shared = guidance {
            let share = shared.runs / spec.count + (spec.index <= shared.runs % spec.count ? 1 : 0)
            shared.runs = share
            shared.freshSeeds = .init(start: (seeds.max() ?? 0) &+ UInt64(spec.index), step: UInt64(spec.count))
            shared.labelPrefix = "s\(spec.index)-"
            guidance = shared
        }
        var fields = [
            "profile": profile, "agent": suite.agentName, "guided": String(guided), "goal": goal ?? "-",
            "shrink": "\(shrinkRuns) runs, \(shrinkTime)",
        ]
        // Shards that serve other recordings generate other scenarios: not one campaign.
        if !catalogs.isEmpty { fields["catalogs"] = catalogs.joined(separator: " ") }
        if https { fields["https"] = "true" }
        recordings.identity(into: &fields)
        let identity = ShardOptions.identity(command: "chaos", fields)
        let record = plan.record(shard: spec.index, identity: identity)
        ShardOptions.announce(record)
        return record
    }
}
