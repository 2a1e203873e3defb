import Foundation
@testable import ResilienceHarness
import Testing

/// `--shard i/n` and `bench merge` end to end on the command-line tests' fast profile:
/// the parts of a run merged give the verdicts of the whole run with the same seed, a
/// gate's parts are gated as a whole, and a bad set of parts is refused.
@Suite(.timeLimit(.minutes(6))) struct BenchShardCommandTests {
    typealias Scratch = BenchRunCommandTests.Scratch

    static let scenarios = ["--scenario", "housekeeping", "--scenario", "license-before-background"]

    /// Each scenario's verdicts (property and outcome), its preconditions and error, by name.
    static func verdicts(_ report: RunReport) -> [String: [String]] {
        Dictionary(uniqueKeysWithValues: report.scenarios.map { scenario in
            (scenario.name, scenario.verdicts.map { "\($0.property): \($0.outcome)" }
                + scenario.preconditions.map { "\($0.name): \($0.met)" } + [scenario.error ?? "no error"])
        })
    }

    @Test func theMergedShardsGiveTheVerdictsOfTheWholeRunAndABadSetIsRefused() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let common = ["--profile", scratch.profile, "--seed", "7"] + Self.scenarios
        let whole = try await runBench(common + ["--out", scratch.out + "/whole"], in: scratch.root)
        var shards: [BenchOutcome] = []
        for index in 1...2 {
            shards.append(try await runBench(
                common + ["--shard", "\(index)/2", "--out", scratch.out + "/s\(index)"], in: scratch.root))
        }
        #expect(shards.map(\.status) == [0, 0], "\(shards.map(\.output))")
        // Each shard played one scenario and says which part it was.
        for (index, shard) in shards.enumerated() {
            #expect(shard.stderr.contains("shard \(index + 1)/2: 1 of 2 units (plan "), "\(shard.stderr)")
            let report = try BenchRunCommandTests.decodeReport(scratch.text("s\(index + 1)/report.json"))
            #expect(report.scenarios.count == 1 && report.run.shard?.units == report.scenarios.map(\.name))
        }
        let merge = try await runBench(["merge", scratch.out + "/s2", scratch.out + "/s1", "--out", scratch.out + "/merged"])
        #expect(merge.status == whole.status, "\(merge.output)\n\(whole.output)")
        #expect(merge.stdout.contains("merged 2 shards (plan "), "\(merge.stdout)")
        let wholeReport = try BenchRunCommandTests.decodeReport(scratch.text("whole/report.json"))
        let merged = try BenchRunCommandTests.decodeReport(scratch.text("merged/report.json"))
        // The same scenarios in the same order, each with the verdicts of the unsharded run.
        #expect(merged.scenarios.map(\.name) == wholeReport.scenarios.map(\.name))
        #expect(Self.verdicts(merged) == Self.verdicts(wholeReport))
        #expect(merged.run.shard == nil && merged.run.mergedFrom?.map(\.index) == [1, 2])
        // Coverage is the parts' united. Not the whole's: a pair met by timing (the
        // license exchange under way at prepareForBackground or not) may differ run to run.
        let parts = try (1...2).map { try BenchRunCommandTests.decodeReport(scratch.text("s\($0)/report.json")) }
        let united = Set(parts.flatMap { $0.coverage?.coveredIDs ?? [] })
        #expect(Set(merged.coverage?.coveredIDs ?? []) == united && !united.isEmpty)
        for file in ["report.html", "junit.xml", "trace.jsonl"] {
            #expect(FileManager.default.fileExists(atPath: scratch.out + "/merged/" + file), "\(file) missing")
        }

        // A shard given twice, a shard missing, a whole run: exit 2, named.
        let refusals: [([String], String)] = [
            ([scratch.out + "/s1", scratch.out + "/s1"], "shard 1/2 is given twice"),
            ([scratch.out + "/s1"], "shard 2/2 is missing"),
            ([scratch.out + "/s1", scratch.out + "/whole"], "\(scratch.out)/whole is not a shard's output"),
        ]
        for (directories, says) in refusals {
            let refused = try await runBench(["merge"] + directories + ["--out", scratch.out + "/refused"])
            #expect(refused.status == 2 && refused.stderr.contains(says), "\(says): \(refused.output)")
        }
        // A part of another whole (its record says seed 8): refused, naming the field.
        let foreign = scratch.out + "/s2-seed8"
        try FileManager.default.copyItem(atPath: scratch.out + "/s2", toPath: foreign)
        let text = try String(contentsOfFile: foreign + "/report.json", encoding: .utf8)
        try text.replacingOccurrences(of: "\"seed\" : \"7\"", with: "\"seed\" : \"8\"")
            .write(toFile: foreign + "/report.json", atomically: true, encoding: .utf8)
        let mixed = try await runBench(["merge", scratch.out + "/s1", foreign, "--out", scratch.out + "/refused"])
        #expect(mixed.status == 2 && mixed.stderr.contains("the shards differ in seed: 7 in "), "\(mixed.output)")
        #expect(!FileManager.default.fileExists(atPath: scratch.out + "/refused"), "a refused merge writes nothing")
    }

    @Test func aGatesShardsAreGatedAsAWholeAgainstTheirBaseline() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let baseline = scratch.root + "/baseline.json"
        // license-before-background cannot complete in 1 ms: its shard fails, and so does the whole.
        try scratch.writeBaseline(Baseline(profile: "cli-test", scenarios: [
            "housekeeping": ["time_to_complete_s": MetricBaseline(value: 999, tolerance: 0.25, direction: .lowerIsBetter)],
            "license-before-background": [
                "time_to_complete_s": MetricBaseline(value: 0.001, tolerance: 0, direction: .lowerIsBetter)
            ],
        ]), to: baseline)
        var statuses: [Int32] = []
        for index in 1...2 {
            let shard = try await runBench(
                ["gate", "--baseline", baseline, "--profile", scratch.profile] + Self.scenarios
                    + ["--shard", "\(index)/2", "--out", scratch.out + "/g\(index)"], in: scratch.root)
            #expect(shard.stdout.contains("shard \(index)/2: gated on its 1 scenario"), "\(shard.output)")
            statuses.append(shard.status)
        }
        #expect(statuses.sorted() == [0, 1], "one shard holds license-before-background: \(statuses)")
        let merge = try await runBench(["merge", scratch.out + "/g1", scratch.out + "/g2", "--baseline", baseline, "--out", scratch.out + "/gm"])
        #expect(merge.status == 1, "\(merge.output)")
        #expect(merge.stdout.contains("regression        license-before-background / time_to_complete_s: 0.001 → "), "\(merge.stdout)")

        // The baseline changed after the shards were gated: the merge refuses to gate on it.
        try scratch.writeBaseline(Baseline(profile: "cli-test", scenarios: [:]), to: baseline)
        let changed = try await runBench(["merge", scratch.out + "/g1", scratch.out + "/g2", "--baseline", baseline, "--out", scratch.out + "/gm2"])
        #expect(changed.status == 2 && changed.stderr.contains("the shards were gated on a baseline with digest"), "\(changed.output)")
    }

    @Test func aChaosCampaignsShardsSplitTheSeedsAndMergeIntoOneCampaign() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        for index in 1...2 {
            let shard = try await runBench(
                ["chaos", "--seeds", "1..2", "--profile", scratch.profile, "--shard", "\(index)/2", "--out", scratch.out + "/c\(index)"],
                in: scratch.root)
            #expect(shard.status == 0, "\(shard.output)")
        }
        let seeds = try (1...2).map { try ChaosSummary.read(from: scratch.out + "/c\($0)").inputs.map(\.label) }
        #expect(Set(seeds.flatMap { $0 }) == ["seed-1", "seed-2"] && seeds.allSatisfy { !$0.isEmpty }, "\(seeds)")
        let merge = try await runBench(["merge", scratch.out + "/c1", scratch.out + "/c2", "--out", scratch.out + "/cm"])
        #expect(merge.status == 0, "\(merge.output)")
        let merged = try ChaosSummary.read(from: scratch.out + "/cm")
        #expect(merged.inputs.map(\.label) == ["seed-1", "seed-2"] && merged.mergedFrom?.count == 2)
        #expect(merge.stdout.contains("chaos, merged from 2 shards: 2 of 2 inputs passed, 0 failed; coverage: "), "\(merge.stdout)")
        for input in merged.inputs {
            #expect(FileManager.default.fileExists(atPath: scratch.out + "/cm/\(input.file)"), "\(input.file) not copied")
            #expect(FileManager.default.fileExists(atPath: scratch.out + "/cm/\(input.reports)/report.json"))
        }
        let coverage = try ChaosCoverage.read(from: scratch.out + "/cm/coverage.json")
        let parts = try (1...2).map { try ChaosCoverage.read(from: scratch.out + "/c\($0)/coverage.json") }
        #expect(Set(coverage.coverage.coveredIDs) == Set(parts.flatMap(\.coverage.coveredIDs)))
    }

    /// More shards than units: the shard left without one writes an empty part, exits 0
    /// and says so; the merge of the parts is the whole.
    @Test func aShardWithNothingToPlayWritesAnEmptyPartThatMerges() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var statuses: [Int32] = []
        for index in 1...2 {
            let shard = try await runBench(
                ["--profile", scratch.profile, "--scenario", "housekeeping", "--json", "--shard", "\(index)/2", "--out", scratch.out + "/e\(index)"],
                in: scratch.root)
            statuses.append(shard.status)
            // stdout stays exactly one JSON report, the empty part's included.
            #expect(try BenchRunCommandTests.decodeReport(shard.stdout).scenarios.count == 2 - index, "\(shard.output)")
            if index == 2 { #expect(shard.stderr.contains("shard 2/2 has nothing to play (1 units over 2 shards)"), "\(shard.stderr)") }
        }
        #expect(statuses == [0, 0])
        let chaos = try await runBench(
            ["chaos", "--seeds", "1", "--profile", scratch.profile, "--shard", "2/2", "--out", scratch.out + "/c2"], in: scratch.root)
        #expect(chaos.status == 0 && chaos.stdout.contains("shard 2/2 has nothing to play"), "\(chaos.output)")
        let merge = try await runBench(["merge", scratch.out + "/e1", scratch.out + "/e2", "--out", scratch.out + "/merged"])
        #expect(merge.status == 0, "\(merge.output)")
        #expect(try BenchRunCommandTests.decodeReport(scratch.text("merged/report.json")).scenarios.map(\.name) == ["housekeeping"])
    }

    @Test(arguments: [("3/2", "shards are numbered 1 to 2"), ("0/4", "shards are numbered 1 to 4"), ("2", "is not INDEX/COUNT")])
    func aBadShardIsBadInput(spec: String, says: String) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        for command in [[], ["gate"], ["matrix", "--agent", "deadzone"], ["chaos", "--seeds", "1"]] {
            let run = try await runBench(command + ["--profile", scratch.profile, "--shard", spec, "--out", scratch.out], in: scratch.root)
            #expect(run.status == 2 && run.stderr.contains(says), "\(command): \(run.output)")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.out))
    }

    /// `--durations` balances by the seconds it reads: a baseline that says
    /// license-before-background takes 100 s and housekeeping 1 s puts them in different
    /// shards, longest first, and the reverse swaps them; it is refused without `--shard`
    /// and for a directory that holds no output.
    @Test func durationsFromAFileDecideTheSplit() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let committed = try Data(contentsOf: URL(fileURLWithPath: ShippedScenarios.root + "/Reports/baseline.json"))
        var played: [[String]] = []
        for (index, seconds) in [["license-before-background": 100.0, "housekeeping": 1.0],
                                 ["license-before-background": 1.0, "housekeeping": 100.0]].enumerated() {
            var document = try #require(try JSONSerialization.jsonObject(with: committed) as? [String: Any])
            document["seconds"] = seconds
            let path = scratch.out + "-durations-\(index).json"
            try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: path))
            let shard = try await runBench(
                ["--profile", scratch.profile, "--seed", "7"] + Self.scenarios
                    + ["--shard", "2/2", "--durations", path, "--out", scratch.out + "/d\(index)"],
                in: scratch.root)
            #expect(shard.status == 0, "\(shard.output)")
            played.append(try BenchRunCommandTests.decodeReport(scratch.text("d\(index)/report.json")).scenarios.map(\.name))
        }
        // The longest goes to shard 1; shard 2 plays the other.
        #expect(played == [["housekeeping"], ["license-before-background"]])

        let refusals: [([String], String)] = [
            (["--durations", scratch.out + "-durations-0.json"], "--durations balances shards: give it with --shard i/n"),
            (["--shard", "1/2", "--durations", scratch.root], "holds no report.json, matrix.json or chaos.json"),
            (["--shard", "1/2", "--durations", scratch.out + "-nothing"], "no such file or directory"),
        ]
        for (arguments, says) in refusals {
            let refused = try await runBench(
                ["--profile", scratch.profile] + Self.scenarios + arguments + ["--out", scratch.out + "/refused"], in: scratch.root)
            #expect(refused.status == 2 && refused.stderr.contains(says), "\(says): \(refused.output)")
        }
    }

    /// The committed baseline records every shipped scenario's seconds, so that `bench gate
    /// --shard i/n` balances the suite by them: two shards then differ by less than the
    /// longest scenario (longest first), where a split by count could put the four longest
    /// together.
    @Test func theCommittedBaselineBalancesTheSuitesShards() throws {
        let baseline = try Baseline.read(from: URL(fileURLWithPath: ShippedScenarios.root + "/Reports/baseline.json"))
        let names = try ShippedScenarios.suite().all.map(\.name)
        let seconds = try #require(baseline.seconds)
        #expect(names.filter { seconds[$0] == nil }.isEmpty, "no seconds for \(names.filter { seconds[$0] == nil })")
        let plan = ShardPlan(units: names.map { ShardUnit(key: $0, seconds: seconds[$0]) }, count: 2)
        let longest = names.compactMap { seconds[$0] }.max() ?? 0
        #expect(abs(plan.estimatedSeconds[0] - plan.estimatedSeconds[1]) <= longest, "\(plan.estimatedSeconds)")
        #expect(Set(plan.keys(ofShard: 1) + plan.keys(ofShard: 2)) == Set(names))
    }
}
