import BenchCore
import Foundation

/// Where a chaos run puts its files, and the lines it prints: one per seed (its
/// verdict, wall time, what it exercised and the two commands that reproduce it), the
/// shrinking's result, and the summary.
struct ChaosCommands {
    let options: ChaosOptions

    func file(_ seed: UInt64) -> String { path("seed-\(seed).yaml") }
    func reports(_ seed: UInt64) -> String { path("seed-\(seed)") }
    func minimalFile(_ seed: UInt64) -> String { path("seed-\(seed).min.yaml") }
    func minimalReports(_ seed: UInt64) -> String { path("seed-\(seed).min") }

    private func path(_ name: String) -> String {
        (options.directory as NSString).appendingPathComponent(name)
    }

    /// The app's arguments as a shell would take them back.
    private var app: String {
        options.appArguments.map { " " + Self.quoted($0) }.joined()
    }

    /// `swift run bench chaos --seeds 17 --profile P …`: the seed generated and run again.
    func rerun(_ seed: UInt64) -> String {
        "swift run bench chaos --seeds \(seed) --profile \(Self.quoted(options.profilePath))\(app)"
    }

    /// `swift run bench --profile P --seed 17 --scenario-file F …`: the file played as is.
    func replay(_ seed: UInt64, file: String) -> String {
        "swift run bench --profile \(Self.quoted(options.profilePath)) --seed \(seed) --scenario-file \(Self.quoted(file))\(app)"
    }

    /// `seed 17  FAIL crash-recovery  31.2 s  exercised: …  rerun: …  replay: …`
    func line(_ outcome: ChaosSeedResult) -> String {
        let verdict: String
        if let missing = outcome.result.unsupported {
            verdict = "UNSUPPORTED (the app lacks \(missing.joined(separator: ", ")))"
        } else {
            verdict = outcome.failure.map { "FAIL \($0.description)" } ?? "PASS"
        }
        let exercised = outcome.result.exercisedProperties
        return "seed \(outcome.seed)  \(verdict)  " + String(format: "%.1f s", outcome.wallSeconds)
            + "  exercised: \(exercised.isEmpty ? "none" : exercised.joined(separator: ", "))"
            + "  rerun: \(rerun(outcome.seed))  replay: \(replay(outcome.seed, file: outcome.path))"
    }

    /// The shrinking's last line: the steps left, the runs, why it stopped, the replay.
    func shrunk(_ result: ChaosShrinkResult, seed: UInt64) -> String {
        let why = switch result.stop {
        case .minimal: "no single step can go"
        case .runBudget: "the bound of \(options.shrinkRuns) runs stopped it"
        case .timeBudget: "the bound of \(Units.format(options.shrinkTime)) stopped it"
        }
        return "  shrunk seed \(seed): \(result.steps) of \(result.originalSteps) steps still fail \(result.target) "
            + "(\(result.runs) runs; \(why)): \(result.path)  replay: \(replay(seed, file: result.path))"
    }

    /// `chaos: 9 of 10 seeds passed, 1 failed (17); kills with bytes in flight: …; wall time …`
    func summary(_ run: ChaosRun) -> String {
        let failed = run.seeds.filter { !$0.passed }
        let evidence = run.seeds.map(\.evidence).reduce(ChaosEvidence(), +)
        return "chaos: \(run.seeds.count - failed.count) of \(run.seeds.count) seeds passed, \(failed.count) failed"
            + (failed.isEmpty ? "" : " (" + failed.map { String($0.seed) }.joined(separator: ", ") + ")")
            + "; kills with bytes in flight: \(evidence.killsWithBytesInFlight) of \(evidence.kills)"
            + "; outages that hit a transfer: \(evidence.outagesThatHitATransfer) of \(evidence.outages)"
            + "; requests hit by origin faults: \(evidence.faultHits)"
            + "; stored segments fetched again after a kill: \(evidence.storedSegmentsFetchedAgain)"
            + "; bytes the disk held at a kill fetched again: \(evidence.bytesLostToKills)"
            + "; wall time \(Units.format(.seconds(Int64(run.wallSeconds.rounded()))))"
    }

    /// `text` as one shell word: as is when it is plain, else in single quotes.
    static func quoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0) }
        return plain ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
