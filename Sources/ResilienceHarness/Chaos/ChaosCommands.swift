import BenchCore
import Foundation

/// Where a chaos run puts its files, and the lines it prints: one per input (its
/// verdict, wall time, what it exercised and the commands that reproduce it), the pairs
/// a guided campaign reached first, the shrinking's result, and the summary.
struct ChaosCommands {
    let options: ChaosOptions

    func file(_ label: String) -> String { path("\(label).yaml") }
    func reports(_ label: String) -> String { path(label) }
    func minimalFile(_ label: String) -> String { path("\(label).min.yaml") }
    func minimalReports(_ label: String) -> String { path("\(label).min") }
    var coverageFile: String { path("coverage.json") }

    /// `seed 17`, or `mutant 3 (of seed-17: seed 17, events from 3 rerolled (91))`.
    func name(_ input: ChaosGuide.Input) -> String {
        guard let mutant = input.mutant else { return "seed \(input.genome.seed)" }
        return "mutant \(mutant) (of \(input.parent ?? "?"): \(input.genome))"
    }

    /// The first line: how many seeds, under which profile, the guidance and the shrinking.
    var opening: String {
        let seeds = options.seeds.count
        let shrinking = options.shrinkRuns == 0 ? "no shrinking"
            : "shrinking each failing input: at most \(options.shrinkRuns) runs, \(Units.format(options.shrinkTime))"
        let together = options.jobs > 1 ? ", up to \(options.jobs) at once" : ""
        var guided = ""
        if let guidance = options.guidance {
            let goal = guidance.goal.map { "until \($0) of \(SituationModel.meaningful.count) meaningful pairs, or " } ?? "for "
            guided = "; then coverage-guided: mutants of the inputs that reach new situation pairs, \(goal)at most "
                + "\(guidance.runs) inputs and \(Units.format(guidance.timeBudget))"
        }
        return "Deadzone \(DeadzoneVersion.current): chaos, \(seeds) seed\(seeds == 1 ? "" : "s") under "
            + "\(options.profile.name)\(together)\(guided) (\(shrinking))"
    }

    private func path(_ name: String) -> String {
        (options.directory as NSString).appendingPathComponent(name)
    }

    /// The app's arguments, then `--catalog DIR` for each recorded catalog served, as a
    /// shell would take them back.
    private var app: String {
        (options.appArguments + options.catalogs.flatMap { ["--catalog", $0] }).map { " " + BenchInvocation.quoted($0) }.joined()
    }

    /// `swift run bench chaos --seeds 17 --profile P …` (or the bench's own path): the
    /// seed generated and run again.
    func rerun(_ seed: UInt64) -> String {
        "\(options.invocation) chaos --seeds \(seed) --profile \(BenchInvocation.quoted(options.profilePath))\(app)"
    }

    /// `swift run bench --profile P --seed 17 --scenario-file F …`: the file played as is.
    func replay(_ seed: UInt64, file: String) -> String {
        "\(options.invocation) --profile \(BenchInvocation.quoted(options.profilePath)) --seed \(seed) --scenario-file \(BenchInvocation.quoted(file))\(app)"
    }

    /// `seed 17  FAIL crash-recovery  31.2 s  exercised: …  rerun: …  replay: …`; a
    /// mutant's line names its parent and has only the replay (its file played as is).
    func line(_ outcome: ChaosSeedResult) -> String {
        let verdict: String
        if let missing = outcome.result.unsupported {
            verdict = "UNSUPPORTED (the app lacks \(missing.joined(separator: ", ")))"
        } else {
            verdict = outcome.failure.map { "FAIL \($0.description)" } ?? "PASS"
        }
        let exercised = outcome.result.exercisedProperties
        let rerun = outcome.input.mutant == nil ? "  rerun: \(rerun(outcome.seed))" : ""
        return "\(name(outcome.input))  \(verdict)  " + String(format: "%.1f s", outcome.wallSeconds)
            + "  exercised: \(exercised.isEmpty ? "none" : exercised.joined(separator: ", "))"
            + "\(rerun)  replay: \(replay(outcome.seed, file: outcome.path))"
    }

    /// `  +2 pairs: a × b, c × d; coverage 27 of 37 meaningful pairs, 48 in all; corpus 6`
    /// (six pairs named at most, then how many more; `coverage.json` has them all).
    func growth(_ outcome: ChaosSeedResult, guide: ChaosGuide) -> String {
        let pairs = outcome.newPairs
        let shown = pairs.prefix(6).map(\.id).joined(separator: ", ") + (pairs.count > 6 ? " and \(pairs.count - 6) more" : "")
        return "  +\(pairs.count) pair\(pairs.count == 1 ? "" : "s"): \(shown); coverage "
            + "\(guide.meaningfulReached) of \(SituationModel.meaningful.count) meaningful pairs, \(guide.pairsReached) in all; "
            + "corpus \(guide.corpusSize)"
    }

    /// The shrinking's last line: the steps left, the runs, why it stopped, the replay.
    func shrunk(_ result: ChaosShrinkResult, input: ChaosGuide.Input) -> String {
        let why = switch result.stop {
        case .minimal: "no single step can go"
        case .runBudget: "the bound of \(options.shrinkRuns) runs stopped it"
        case .timeBudget: "the bound of \(Units.format(options.shrinkTime)) stopped it"
        }
        let shown = input.mutant.map { "mutant \($0)" } ?? "seed \(input.genome.seed)"
        return "  shrunk \(shown): \(result.steps) of \(result.originalSteps) steps still fail \(result.target) "
            + "(\(result.runs) runs; \(why)): \(result.path)  replay: \(replay(input.genome.seed, file: result.path))"
    }

    /// `chaos: 9 of 10 seeds passed, 1 failed (17); kills with bytes in flight: …;
    /// coverage: …; wall time …` (inputs, and the guide's corpus and stop, when guided).
    func summary(_ run: ChaosRun) -> String {
        let failed = run.seeds.filter { !$0.passed }
        let evidence = run.seeds.map(\.evidence).reduce(ChaosEvidence(), +)
        let what = options.guidance == nil ? "seeds" : "inputs"
        var guided = ""
        if options.guidance != nil {
            let mutants = run.seeds.filter { $0.input.mutant != nil }.count
            let kept = run.seeds.filter { !$0.newPairs.isEmpty }.count
            guided = " (\(mutants) mutants); \(kept) reached new pairs; stopped: \(Self.stopText(run.stop))"
        }
        return "chaos: \(run.seeds.count - failed.count) of \(run.seeds.count) \(what) passed, \(failed.count) failed"
            + (failed.isEmpty ? "" : " (" + failed.map { $0.input.mutant == nil ? String($0.seed) : $0.label }.joined(separator: ", ") + ")")
            + guided
            + "; kills with bytes in flight: \(evidence.killsWithBytesInFlight) of \(evidence.kills)"
            + "; outages that hit a transfer: \(evidence.outagesThatHitATransfer) of \(evidence.outages)"
            + "; requests hit by origin faults: \(evidence.faultHits)"
            + "; stored segments fetched again after a kill: \(evidence.storedSegmentsFetchedAgain)"
            + "; bytes the disk held at a kill fetched again: \(evidence.bytesLostToKills)"
            + "; coverage: \(run.coverage.coverage.summary), \(run.coverage.pairs) pairs in all (\(coverageFile))"
            + "; wall time \(Units.format(.seconds(Int64(run.wallSeconds.rounded()))))"
    }

    /// Why a campaign stopped starting inputs, in words.
    static func stopText(_ stop: ChaosGuide.Stop?) -> String {
        switch stop {
        case .goalReached: "the goal was reached"
        case .runBudget: "the bound on inputs was reached"
        case .timeBudget: "the time budget was spent"
        case .seedsPlayed, nil: "every input was played"
        }
    }

    /// `chaos.json` of `run`, with its summary line; paths relative to the directory.
    func file(of run: ChaosRun, summary: String) -> ChaosSummary {
        let name = { (path: String) in (path as NSString).lastPathComponent }
        let inputs = run.seeds.map { outcome in
            ChaosInputSummary(
                label: outcome.label, seed: outcome.seed, parent: outcome.input.parent, file: name(outcome.path),
                reports: outcome.label, steps: outcome.steps,
                outcome: outcome.result.unsupported != nil ? .unsupported : outcome.passed ? .pass : .fail,
                failure: outcome.failure.map(\.description), exercised: outcome.result.exercisedProperties,
                wallSeconds: outcome.wallSeconds, newPairs: outcome.newPairs.map(\.id),
                shrunk: outcome.shrunk.map { shrunk in
                    ChaosShrunkSummary(
                        file: name(shrunk.path), reports: name(minimalReports(outcome.label)), steps: shrunk.steps,
                        originalSteps: shrunk.originalSteps, runs: shrunk.runs, target: shrunk.target)
                })
        }
        return ChaosSummary(
            profile: options.profile.name, profilePath: options.profilePath, agent: options.agentName,
            wallSeconds: run.wallSeconds, stop: Self.stopText(run.stop), summary: summary, inputs: inputs, shard: options.shard)
    }
}
