import BenchCore
import FixtureOrigin
import Foundation

/// How `bench chaos` runs.
public struct ChaosOptions: Sendable {
    public var seeds: [UInt64]
    /// The profile and the path it was given as (for the commands printed).
    public var profile: Profile
    public var profilePath: String
    /// Where the scenario files and the reports go.
    public var directory: String
    /// The harness's options for one seed's run: the seed is the run's seed, and the
    /// app under test's (Deadzone's engine takes `--seed`).
    public var harness: @Sendable (UInt64) throws -> HarnessOptions
    /// The arguments that chose the app under test (`--agent CMD`, `--misbehave NAME`),
    /// added to the commands printed.
    public var appArguments: [String]
    /// The bounds of the shrinking of each failing seed: runs of the harness, and time.
    public var shrinkRuns: Int
    public var shrinkTime: Duration
    /// The most seeds played at the same time (each its own scenario, origin, conditioner
    /// and app); shrinking plays one candidate at a time.
    public var jobs: Int = 1
    /// Start no new seed once one has failed (the seeds already playing finish), and
    /// shrink only the lowest failing seed: a campaign that needs one counterexample, e.g.
    /// to show a misbehaviour is caught.
    public var stopAtFirstFailure = false
    /// Coverage guidance (`--guided`): after the seeds, mutants of the inputs that
    /// reached new situation pairs, until a goal or a bound (`ChaosGuide`); nil plays the
    /// seeds alone.
    public var guidance: ChaosGuidance?
    /// How the printed reruns and replays start: `swift run bench` by default;
    /// `bench chaos` gives `BenchInvocation.current`, so they work as printed.
    public var invocation = "swift run bench"
    /// Which part of a sharded campaign this is (`--shard i/n`: `seeds` are then the
    /// shard's); recorded in `chaos.json`. nil for a whole campaign.
    public var shard: ShardRecord?
    /// How `chaos.json` names the app under test (`deadzone`, `deadzone --misbehave X`,
    /// or the `--agent` command line).
    public var agentName = "deadzone"
    /// Streams `bench record` copied (`--catalog DIR`): served by every input's origin
    /// (`HarnessOptions.recorded`) and requested by the generator beside the fixture
    /// videos (`ChaosGenerator.recorded`). Nothing by default.
    public var recorded = RecordedContent()
    /// The catalog directories `recorded` was loaded from, added to the commands printed
    /// (`--catalog DIR` each), so that a rerun or a replay serves them too.
    public var catalogs: [String] = []
    /// Fixture videos played by recorded streams (`--video`): every input's requests of
    /// them download the recording; the generator then requests none of those recordings
    /// itself. Nothing by default.
    public var substitution = VideoSubstitution()

    public init(
        seeds: [UInt64], profile: Profile, profilePath: String, directory: String, appArguments: [String] = [],
        shrinkRuns: Int = 40, shrinkTime: Duration = .seconds(600), harness: @escaping @Sendable (UInt64) throws -> HarnessOptions
    ) {
        self.seeds = seeds
        self.profile = profile
        self.profilePath = profilePath
        self.directory = directory
        self.appArguments = appArguments
        self.shrinkRuns = shrinkRuns
        self.shrinkTime = shrinkTime
        self.harness = harness
    }

    /// The harness's options for a run of `seed`: `harness(seed)`, serving `recorded`.
    func harnessOptions(seed: UInt64) throws -> HarnessOptions {
        var options = try harness(seed)
        options.recorded = recorded
        options.videos = substitution.videos
        return options
    }

    /// The scenario of an input's `file` (written at `path`), played on the recordings.
    func scenario(of file: ScenarioFile, path: String) throws -> Scenario {
        try substitution.scenario(of: file, path: path)
    }
}

/// A finished chaos run.
public struct ChaosRun: Sendable {
    public var seeds: [ChaosSeedResult]
    public var wallSeconds: Double
    /// The situation pairs the campaign created (every input's, by label), and how
    /// that coverage grew.
    public var coverage: ChaosCoverage
    /// Why it stopped starting inputs.
    public var stop: ChaosGuide.Stop?

    /// Every seed passed (and there was one).
    public var passed: Bool { !seeds.isEmpty && seeds.allSatisfy(\.passed) }
}

/// Runs `bench chaos`: for each input (a seed, and with `guidance` the mutants the
/// guide picks), the generated scenario (`ChaosGenerator`) written to `<label>.yaml`
/// (`seed-17.yaml`, `mutant-3.yaml`), run through the harness, its reports written to
/// `<label>/`, one line said; a failing input shrunk (`ChaosShrinker`, each candidate
/// through the harness) to `<label>.min.yaml`, with progress said; the campaign's
/// coverage written to `coverage.json`; the summary said at the end. `say` gets each
/// line; `writeReports` writes a run's report files into a directory (the report
/// writers are a layer above the harness).
public enum ChaosRunner {
    public static func run(
        _ options: ChaosOptions, writeReports: @escaping @Sendable (HarnessRun, String) throws -> Void,
        say: @escaping @Sendable (String) -> Void
    ) async throws -> ChaosRun {
        let started = ContinuousClock.now
        try FileManager.default.createDirectory(atPath: options.directory, withIntermediateDirectories: true)
        let substitutes = Set(options.substitution.videos.values)
        let (pool, leftOut) = ChaosRecordedVideo.pool(
            in: options.recorded, besides: options.substitution.substitutes.map(\.recorded))
        let generator = ChaosGenerator(profile: options.profile, recorded: pool.filter { !substitutes.contains($0.id) })
        let commands = ChaosCommands(options: options)
        say(commands.opening)
        for line in leftOut { say(line) }
        let (played, growth, stop) = await playInputs(
            options, generator: generator, commands: commands, started: started, writeReports: writeReports, say: say)
        var results: [ChaosSeedResult] = []
        var shrunk = 0
        for var outcome in played {
            // One counterexample is what --stop-at-first-failure asks for: the first failing input is shrunk.
            let wanted = !options.stopAtFirstFailure || shrunk == 0
            if wanted, let failure = outcome.failure, failure.unsupported == nil, options.shrinkRuns > 0 {
                shrunk += 1
                let file = generator.scenario(outcome.input.genome, mutant: outcome.input.mutant)
                outcome.shrunk = try await shrink(file, input: outcome.input, failure: failure, options: options,
                                                  protected: generator.protectedVideos, commands: commands,
                                                  writeReports: writeReports, say: say)
            }
            results.append(outcome)
        }
        let coverage = ChaosCoverage(
            coverage: SituationModel.runCoverage(results.compactMap { result in result.result.coverage.map { (result.label, $0) } }),
            growth: growth)
        let chaos = ChaosRun(seeds: results, wallSeconds: (ContinuousClock.now - started).seconds, coverage: coverage, stop: stop)
        try coverage.write(to: commands.coverageFile)
        let summary = commands.summary(chaos)
        try commands.file(of: chaos, summary: summary).write(into: options.directory)
        say(summary)
        return chaos
    }

    /// Plays the guide's inputs, up to `options.jobs` at once, saying each one's line
    /// as it ends (and, when guided, the pairs it reached first); the results in the
    /// order they were started (an input whose files could not be written is said and
    /// left out), how coverage grew, and why the campaign stopped.
    private static func playInputs(
        _ options: ChaosOptions, generator: ChaosGenerator, commands: ChaosCommands, started: ContinuousClock.Instant,
        writeReports: @escaping @Sendable (HarnessRun, String) throws -> Void, say: @escaping @Sendable (String) -> Void
    ) async -> ([ChaosSeedResult], [ChaosCoverage.Growth], ChaosGuide.Stop?) {
        var guide = ChaosGuide(
            seeds: options.seeds, generator: generator, guidance: options.guidance,
            meaningful: Set(SituationModel.meaningful.map(\.pair.id)))
        var results: [Int: ChaosSeedResult] = [:]
        var growth: [ChaosCoverage.Growth] = []
        var failed = false
        var count = 0
        await withTaskGroup(of: (Int, ChaosSeedResult?).self) { group in
            func startNext() {
                guard !(failed && options.stopAtFirstFailure),
                    let input = guide.next(elapsed: ContinuousClock.now - started) else { return }
                let index = count
                count += 1
                group.addTask {
                    do {
                        return (index, try await play(input, options: options, generator: generator, commands: commands,
                                                      writeReports: writeReports))
                    } catch {
                        say("\(input.label)  ERROR  \(error)")
                        return (index, nil)
                    }
                }
            }
            for _ in 0..<max(1, options.jobs) { startNext() }
            for await (index, played) in group {
                if var outcome = played {
                    outcome.newPairs = guide.record(outcome.input, pairs: outcome.result.coverage?.pairs.map(\.pair) ?? [])
                    say(commands.line(outcome))
                    if !outcome.newPairs.isEmpty {
                        growth.append(ChaosCoverage.Growth(
                            runs: count, seconds: (ContinuousClock.now - started).seconds,
                            meaningful: guide.meaningfulReached, pairs: guide.pairsReached, by: outcome.label))
                        if options.guidance != nil { say(commands.growth(outcome, guide: guide)) }
                    }
                    results[index] = outcome
                    if !outcome.passed { failed = true }
                }
                startNext()
            }
        }
        // The guide starts the seeds before any mutant: those not started were not played.
        let left = options.seeds.count - min(options.seeds.count, count)
        if failed && options.stopAtFirstFailure && left > 0 {
            say("stopped at the first failure: \(left) seed\(left == 1 ? "" : "s") not played")
        }
        return (results.keys.sorted().compactMap { results[$0] }, growth, guide.stop)
    }

    /// One input: its file written, played, its reports written.
    private static func play(
        _ input: ChaosGuide.Input, options: ChaosOptions, generator: ChaosGenerator, commands: ChaosCommands,
        writeReports: @Sendable (HarnessRun, String) throws -> Void
    ) async throws -> ChaosSeedResult? {
        let file = generator.scenario(input.genome, mutant: input.mutant)
        let path = commands.file(input.label)
        try file.yaml.write(toFile: path, atomically: true, encoding: .utf8)
        let clock = ContinuousClock.now
        let run = await HarnessRunner.run(
            [try options.scenario(of: file, path: path)], options: try options.harnessOptions(seed: input.genome.seed))
        let seconds = (ContinuousClock.now - clock).seconds
        try writeReports(run, commands.reports(input.label))
        guard let result = run.report.scenarios.first else { return nil }
        return ChaosSeedResult(
            input: input, path: path, steps: file.steps.count, result: result, evidence: ChaosEvidence(ScenarioTrace(run.trace)),
            wallSeconds: seconds)
    }

    /// Shrinks a failing seed's file until the shrinker stops or the time is up; writes
    /// the smallest file that still failed the same way, and its reports.
    private static func shrink(
        _ file: ScenarioFile, input: ChaosGuide.Input, failure: ChaosFailure, options: ChaosOptions, protected: Set<String>,
        commands: ChaosCommands, writeReports: @Sendable (HarnessRun, String) throws -> Void, say: @Sendable (String) -> Void
    ) async throws -> ChaosShrinkResult {
        let seed = input.genome.seed
        let target = failure.target
        let deadline = ContinuousClock.now + options.shrinkTime
        say("  shrinking \(commands.name(input)) (\(file.steps.count) steps), keeping what still fails \(target): at most "
            + "\(options.shrinkRuns) runs or \(Units.format(options.shrinkTime))")
        var shrinker = ChaosShrinker(file, maximumRuns: options.shrinkRuns)
        var bestRun: HarnessRun?
        while ContinuousClock.now < deadline, let candidate = shrinker.next() {
            let run = await HarnessRunner.run(
                [try options.scenario(of: candidate, path: "a shrunk candidate")], options: try options.harnessOptions(seed: seed))
            let found = run.report.scenarios.first.flatMap(ChaosFailure.init)
            let kept = found?.shows(target) ?? false
            shrinker.record(stillFails: kept)
            if kept { bestRun = run }
            let outcome = kept ? "still fails \(target): kept" : found.map { "fails otherwise (\($0.description))" } ?? "passes"
            say("  shrink \(shrinker.runs)/\(options.shrinkRuns): \(candidate.steps.count) steps, \(outcome)")
        }
        if ContinuousClock.now >= deadline { shrinker.outOfTime() }
        var minimal = shrinker.best
        minimal.name = "\(file.name)-min"
        minimal.needs = ChaosNeeds.of(minimal.steps, protected: protected)
        minimal.summary = "The chaos scenario of \(commands.name(input)) (profile \(options.profile.name)) shrunk from \(file.steps.count) "
            + "to \(minimal.steps.count) steps that still fail \(target)."
        let path = commands.minimalFile(input.label)
        try minimal.yaml.write(toFile: path, atomically: true, encoding: .utf8)
        if let bestRun { try writeReports(bestRun, commands.minimalReports(input.label)) }
        let result = ChaosShrinkResult(
            target: target, originalSteps: file.steps.count, steps: minimal.steps.count, runs: shrinker.runs,
            stop: shrinker.stop ?? .timeBudget, path: path)
        say(commands.shrunk(result, input: input))
        return result
    }
}
