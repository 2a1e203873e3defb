import ArgumentParser
import BenchCore
import BenchReports
import Foundation
import ResilienceHarness

/// `--shard i/n` and `--durations PATH`, shared by `bench`, `bench gate`, `bench matrix`
/// and `bench chaos` (docs/ci.md: a CI job matrix of shards, then `bench merge`).
struct ShardOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Play only the i-th of n parts of the work, e.g. 2/4; join the parts with `bench merge`.",
        discussion: "The split is the same on every machine for the same inputs: longest first by each unit's "
            + "measured seconds (--durations, or the gate's baseline), by count when none was measured.",
        valueName: "i/n"))
    var shard: String?

    @Option(help: ArgumentHelp(
        "Balance the shards by the seconds each unit took in this earlier output (a report directory or report.json, "
            + "a matrix's or a chaos campaign's directory, or a baseline file).",
        valueName: "path"))
    var durations: String?

    /// The `--shard` asked for, or nil; `BadInput` for a malformed one.
    func spec() throws(SuiteRun.BadInput) -> ShardSpec? {
        guard let shard else {
            if durations != nil { throw SuiteRun.BadInput(description: "--durations balances shards: give it with --shard i/n") }
            return nil
        }
        do { return try ShardSpec(parsing: shard) } catch { throw SuiteRun.BadInput(description: error.description) }
    }

    /// The seconds `--durations` holds per unit key, or `fallback` without it.
    func measuredSeconds(fallback: [String: Double] = [:]) throws(SuiteRun.BadInput) -> [String: Double] {
        guard let durations else { return fallback }
        do { return try ShardDurationsFile.read(durations) } catch {
            throw SuiteRun.BadInput(description: "--durations \(durations): \(error)")
        }
    }

    /// The plan of `keys` for this shard, balanced by `seconds`; nil without `--shard`.
    func plan(keys: [String], fallback: [String: Double] = [:]) throws(SuiteRun.BadInput) -> (ShardSpec, ShardPlan)? {
        guard let spec = try spec() else { return nil }
        let seconds = try measuredSeconds(fallback: fallback)
        return (spec, ShardPlan(units: keys.map { ShardUnit(key: $0, seconds: seconds[$0]) }, count: spec.count))
    }

    /// What every shard of a whole shares (`ShardRecord.identity`): the command, the
    /// commit, Deadzone's version, and `extra` (profile, seed, agent, baseline…).
    static func identity(command: String, _ extra: [String: String]) -> [String: String] {
        ["command": command, "commit": SourceCommit.current, "deadzone": DeadzoneVersion.current].merging(extra) { $1 }
    }

    /// A baseline file's fingerprint for the identity: its digest, or `none` when absent.
    static func baselineDigest(_ path: String?) -> String {
        guard let path, let data = FileManager.default.contents(atPath: path) else { return "none" }
        return ShardPlan.digest(data)
    }

    /// `shard 4/4 has nothing to play (3 units over 4 shards); …`: why a shard exits 0 with an empty part.
    static func nothingToPlay(_ record: ShardRecord) -> String {
        "shard \(record.spec) has nothing to play (\(record.allUnits.count) units over \(record.count) shards); "
            + "its empty part is for `bench merge`"
    }

    /// Says on stderr which part this is, so a CI log shows it.
    static func announce(_ record: ShardRecord) {
        FileHandle.standardError.writeSurvivingSignals(Data(
            "shard \(record.spec): \(record.units.count) of \(record.allUnits.count) units (plan \(record.plan))\n".utf8))
    }
}
