import ArgumentParser
import BenchCore
import BenchReports
import Foundation
import ResilienceHarness

/// `bench gate`: the CI resilience gate.
struct GateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gate",
        abstract: "Run the CI suite and fail on any property failure or on a metric worse than the baseline.",
        discussion: """
            Runs the scenarios like `bench run`, then compares every metric with the baseline file: a metric \
            worse than its baseline beyond the tolerance set for it in that file is a regression. Prints what \
            regressed. With --scenario, only the scenarios run are compared (the baseline's others are \
            listed, not failed). --update-baseline rewrites the file from this run (keeping each metric's \
            tolerance) instead of gating on it, and refuses (exit 1, file unchanged) when a property failed, \
            a scenario erred or a metric is not a finite number. --calibrate N runs the suite N times and \
            writes values and allowances from the spread the runs show (docs/report-schema.md). A baseline \
            made with another profile, agent (--agent) or scenario set is refused (exit 2) before anything \
            runs. A scenario the app lacks a capability for is reported unsupported and neither \
            passes nor fails the gate (unless no scenario was played).
            With --shard i/n it gates only its part (balanced by the baseline's seconds per scenario); \
            `bench merge` gates the whole from the parts' outputs (docs/ci.md).
            Exit status: 0 when the gate passes, 1 when it fails, 2 for bad input.
            Example: swift run bench gate --baseline Reports/baseline.json
            """
    )

    @Option(help: "The baseline file (JSON, with a tolerance per metric).")
    var baseline: String = Baseline.defaultPath

    @Option(help: "The network profile (YAML).")
    var profile: String = "Profiles/flaky-wifi.yaml"

    @OptionGroup var options: SuiteOptions

    @Flag(name: .customLong("update-baseline"), help: "Rewrite the baseline's values from this run.")
    var updateBaseline = false

    @Option(help: ArgumentHelp(
        "Run the suite N times (at least 3) and write the baseline from what they measured.",
        discussion: "Each metric's value becomes the median of the runs, its allowance 3 times the largest deviation "
            + "from the median (with a floor per metric); the file records the runs' samples and the machine.",
        valueName: "N"))
    var calibrate: Int?

    @OptionGroup var sharding: ShardOptions

    func run() async throws {
        do { _ = try sharding.spec() } catch { exitBadInput(error.description) }
        if !options.recordings.videos.isEmpty {
            exitBadInput("--video: the gate compares each scenario's metrics with a baseline measured on the fixture videos, "
                + "which a recording does not match; judge the suite on recordings with `bench run --catalog DIR --video "
                + "\(options.recordings.videos[0])` (exit status 1 when any property fails)")
        }
        let url = URL(fileURLWithPath: baseline)
        var current = Baseline()
        if FileManager.default.fileExists(atPath: baseline) {
            do { current = try Baseline.read(from: url) } catch { exitBadInput("\(error)") }
        } else if !updateBaseline && calibrate == nil {
            exitBadInput("no baseline at \(baseline); make one with `bench gate --update-baseline --baseline \(baseline)`")
        }
        var suite = SuiteRun(
            profilePath: profile, scenarioNames: options.scenarios, scenarioFiles: options.scenarioFiles, seed: options.seed,
            timeLimitSeconds: options.timeLimit, misbehavior: nil, agentCommand: options.agent, progressOnStandardError: false,
            jobs: options.jobs)
        suite.launching = options.launching
        suite.catalogs = options.catalogs
        // The gate judges what an intercepted origin served as a run does (it once parsed
        // --intercept and ran without it: a gate that said nothing of what it was asked).
        options.recordings.apply(to: &suite)
        let early = options.https && calibrate == nil ? options.out ?? suite.defaultDirectory() : nil
        suite.httpsDirectory = early
        do {
            (suite.shard, suite.shardSeconds) = (try sharding.spec(), try sharding.measuredSeconds(fallback: current.seconds ?? [:]))
        } catch { exitBadInput(error.description) }
        if suite.shard != nil && (updateBaseline || calibrate != nil) {
            exitBadInput("--shard gates one part of the suite; update or calibrate the baseline from a whole run, without --shard")
        }
        let partial = !(options.scenarios + options.scenarioFiles).isEmpty
        suite.shardIdentity = [
            "command": "gate", "partial": String(partial), "baseline": ShardOptions.baselineDigest(baseline),
        ]
        if options.https { suite.shardIdentity["https"] = "true" }
        options.recordings.identity(into: &suite.shardIdentity)
        if let calibrate { return try await calibrateBaseline(runs: calibrate, suite: suite, previous: current) }
        let (profileName, names): (String, [String])
        do { (profileName, names) = (try suite.loadProfile().name, try suite.scenarios().map(\.name)) } catch {
            exitBadInput(error.description)
        }
        if !updateBaseline,
            let refusal = current.refusal(profile: profileName, agent: suite.agentName, scenarios: names, path: baseline)
        {
            exitBadInput(refusal)
        }
        let run: HarnessRun
        do { run = try await suite.run() } catch { exitBadInput(error.description) }
        let comparison = GateComparison(report: run.report, baseline: current, onlyScenariosRun: partial || suite.shard != nil)
        let directory = early ?? options.out ?? SummaryTable.defaultDirectory(profile: run.report.run.profile)
        let note = ["Compared with \(baseline).", current.concurrencyNote(jobs: run.report.run.jobs ?? 1)].compactMap { $0 }
        let files = try SuiteRun.write(run, comparison: comparison, baselineNote: note.joined(separator: " "), to: directory)
        print("\n" + SummaryTable.render(run.report) + "\n")
        if updateBaseline {
            if let refusal = comparison.updateRefusal(baselinePath: baseline) {
                for line in refusal { print(line) }
                print("report: \(files.reportHTML.path)")
                throw ExitCode(1)
            }
            try current.updated(from: run.report).write(to: url)
            print("baseline written: \(baseline)")
            print("report: \(files.reportHTML.path)")
            return
        }
        for line in comparison.lines(baselinePath: baseline) { print(line) }
        if note.count > 1 { print("note: \(note[1])") }
        print("report: \(files.reportHTML.path)")
        if let shard = run.report.run.shard {
            print("shard \(shard.spec): gated on its \(shard.units.count) scenario\(shard.units.count == 1 ? "" : "s"); "
                + "the whole's verdict (coverage included) is `bench merge`'s")
            if shard.units.isEmpty { return print(ShardOptions.nothingToPlay(shard)) }
        }
        let played = run.report.scenarios.contains { $0.unsupported == nil }
        if !played { print("gate: fails: no scenario was played (every one needs a capability the app does not declare)") }
        if !comparison.passed || !played { throw ExitCode(1) }
    }
}
