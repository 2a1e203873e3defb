import BenchCore
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
}

/// A finished chaos run.
public struct ChaosRun: Sendable {
    public var seeds: [ChaosSeedResult]
    public var wallSeconds: Double

    /// Every seed passed (and there was one).
    public var passed: Bool { !seeds.isEmpty && seeds.allSatisfy(\.passed) }
}

/// Runs `bench chaos`: for each seed, the generated scenario (`ChaosGenerator`) written
/// to `seed-<n>.yaml`, run through the harness, its reports written to `seed-<n>/`, one
/// line said; a failing seed shrunk (`ChaosShrinker`, each candidate through the
/// harness) to `seed-<n>.min.yaml`, with progress said; the summary said at the end.
/// `say` gets each line; `writeReports` writes a run's report files into a directory
/// (the report writers are a layer above the harness).
public enum ChaosRunner {
    public static func run(
        _ options: ChaosOptions, writeReports: @escaping @Sendable (HarnessRun, String) throws -> Void,
        say: @escaping @Sendable (String) -> Void
    ) async throws -> ChaosRun {
        let started = ContinuousClock.now
        try FileManager.default.createDirectory(atPath: options.directory, withIntermediateDirectories: true)
        let generator = ChaosGenerator(profile: options.profile)
        let commands = ChaosCommands(options: options)
        let shrinking = options.shrinkRuns == 0 ? "no shrinking"
            : "shrinking each failing seed: at most \(options.shrinkRuns) runs, \(Units.format(options.shrinkTime))"
        let together = options.jobs > 1 ? ", up to \(options.jobs) at once" : ""
        say("Deadzone \(DeadzoneVersion.current): chaos, \(options.seeds.count) seed\(options.seeds.count == 1 ? "" : "s") under "
            + "\(options.profile.name)\(together) (\(shrinking))")
        let played = await playSeeds(options, generator: generator, commands: commands, writeReports: writeReports, say: say)
        var results: [ChaosSeedResult] = []
        var shrunk = 0
        for var outcome in played {
            // One counterexample is what --stop-at-first-failure asks for: the lowest failing seed is shrunk.
            let wanted = !options.stopAtFirstFailure || shrunk == 0
            if wanted, let failure = outcome.failure, failure.unsupported == nil, options.shrinkRuns > 0 {
                shrunk += 1
                let file = generator.scenario(seed: outcome.seed)
                outcome.shrunk = try await shrink(file, seed: outcome.seed, failure: failure, options: options, commands: commands,
                                                  writeReports: writeReports, say: say)
            }
            results.append(outcome)
        }
        let chaos = ChaosRun(seeds: results, wallSeconds: (ContinuousClock.now - started).seconds)
        say(commands.summary(chaos))
        return chaos
    }

    /// Plays every seed, up to `options.jobs` at once, saying each one's line as it ends;
    /// the results in the order of `options.seeds` (a seed whose files could not be
    /// written is said and left out).
    private static func playSeeds(
        _ options: ChaosOptions, generator: ChaosGenerator, commands: ChaosCommands,
        writeReports: @escaping @Sendable (HarnessRun, String) throws -> Void, say: @escaping @Sendable (String) -> Void
    ) async -> [ChaosSeedResult] {
        var results: [Int: ChaosSeedResult] = [:]
        await withTaskGroup(of: (Int, ChaosSeedResult?).self) { group in
            var waiting = options.seeds.indices[...]
            var failed = false
            func startNext() {
                guard !(failed && options.stopAtFirstFailure), let index = waiting.popFirst() else { return }
                let seed = options.seeds[index]
                group.addTask {
                    do {
                        return (index, try await playSeed(seed, options: options, generator: generator, commands: commands,
                                                          writeReports: writeReports))
                    } catch {
                        say("seed \(seed)  ERROR  \(error)")
                        return (index, nil)
                    }
                }
            }
            for _ in 0..<max(1, options.jobs) { startNext() }
            for await (index, outcome) in group {
                if let outcome {
                    say(commands.line(outcome))
                    results[index] = outcome
                    if !outcome.passed { failed = true }
                }
                startNext()
            }
            if failed && options.stopAtFirstFailure && !waiting.isEmpty {
                say("stopped at the first failure: \(waiting.count) seed\(waiting.count == 1 ? "" : "s") not played")
            }
        }
        return results.keys.sorted().compactMap { results[$0] }
    }

    /// One seed: its file written, played, its reports written.
    private static func playSeed(
        _ seed: UInt64, options: ChaosOptions, generator: ChaosGenerator, commands: ChaosCommands,
        writeReports: @Sendable (HarnessRun, String) throws -> Void
    ) async throws -> ChaosSeedResult? {
        let file = generator.scenario(seed: seed)
        let path = commands.file(seed)
        try file.yaml.write(toFile: path, atomically: true, encoding: .utf8)
        let clock = ContinuousClock.now
        let run = await HarnessRunner.run([Scenario(file)], options: try options.harness(seed))
        let seconds = (ContinuousClock.now - clock).seconds
        try writeReports(run, commands.reports(seed))
        guard let result = run.report.scenarios.first else { return nil }
        return ChaosSeedResult(
            seed: seed, path: path, steps: file.steps.count, result: result, evidence: ChaosEvidence(ScenarioTrace(run.trace)),
            wallSeconds: seconds)
    }

    /// Shrinks a failing seed's file until the shrinker stops or the time is up; writes
    /// the smallest file that still failed the same way, and its reports.
    private static func shrink(
        _ file: ScenarioFile, seed: UInt64, failure: ChaosFailure, options: ChaosOptions, commands: ChaosCommands,
        writeReports: @Sendable (HarnessRun, String) throws -> Void, say: @Sendable (String) -> Void
    ) async throws -> ChaosShrinkResult {
        let target = failure.target
        let deadline = ContinuousClock.now + options.shrinkTime
        say("  shrinking seed \(seed) (\(file.steps.count) steps), keeping what still fails \(target): at most "
            + "\(options.shrinkRuns) runs or \(Units.format(options.shrinkTime))")
        var shrinker = ChaosShrinker(file, maximumRuns: options.shrinkRuns)
        var bestRun: HarnessRun?
        while ContinuousClock.now < deadline, let candidate = shrinker.next() {
            let run = await HarnessRunner.run([Scenario(candidate)], options: try options.harness(seed))
            let found = run.report.scenarios.first.flatMap(ChaosFailure.init)
            let kept = found?.shows(target) ?? false
            shrinker.record(stillFails: kept)
            if kept { bestRun = run }
            let outcome = kept ? "still fails \(target): kept" : found.map { "fails otherwise (\($0.description))" } ?? "passes"
            say("  shrink \(shrinker.runs)/\(options.shrinkRuns): \(candidate.steps.count) steps, \(outcome)")
        }
        if ContinuousClock.now >= deadline { shrinker.outOfTime() }
        var minimal = shrinker.best
        minimal.name = "chaos-\(seed)-min"
        minimal.needs = ChaosNeeds.of(minimal.steps)
        minimal.summary = "The chaos scenario of seed \(seed) (profile \(options.profile.name)) shrunk from \(file.steps.count) "
            + "to \(minimal.steps.count) steps that still fail \(target)."
        let path = commands.minimalFile(seed)
        try minimal.yaml.write(toFile: path, atomically: true, encoding: .utf8)
        if let bestRun { try writeReports(bestRun, commands.minimalReports(seed)) }
        let result = ChaosShrinkResult(
            target: target, originalSteps: file.steps.count, steps: minimal.steps.count, runs: shrinker.runs,
            stop: shrinker.stop ?? .timeBudget, path: path)
        say(commands.shrunk(result, seed: seed))
        return result
    }
}
