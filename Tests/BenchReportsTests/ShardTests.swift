import BenchReports
import BenchResults
import BenchVocabulary
import Foundation
import Testing

/// The logic of `--shard` and `bench merge`: parsing a shard, the balanced split, the
/// check of a set of parts, and the joining of run reports and chaos summaries.
@Suite struct ShardTests {
    @Test(arguments: [("3/2", "shards are numbered 1 to 2"), ("0/4", "so 0 is not one"), ("1/0", "at least 1"),
                      ("2", "is not INDEX/COUNT"), ("a/b", "is not INDEX/COUNT"), ("1/2/3", "is not INDEX/COUNT")])
    func aMalformedShardIsRefusedSayingWhatToGive(text: String, says: String) {
        #expect(throws: ShardSpecError.self) { try ShardSpec(parsing: text) }
        do { _ = try ShardSpec(parsing: text) } catch { #expect(error.description.contains(says), "\(error)") }
    }

    @Test func aShardParses() throws {
        let spec = try ShardSpec(parsing: "2/4")
        #expect(spec.index == 2 && spec.count == 4 && spec.description == "2/4")
    }

    @Test func withoutMeasurementsTheShardsGetCountsThatDifferByAtMostOne() {
        let units = (1...7).map { ShardUnit(key: "u\($0)") }
        let plan = ShardPlan(units: units, count: 3)
        let sizes = (1...3).map { plan.keys(ofShard: $0).count }
        #expect(sizes.sorted() == [2, 2, 3])
        // Every unit in exactly one shard, each shard's keys in the whole's order.
        let all = (1...3).flatMap { plan.keys(ofShard: $0) }
        #expect(Set(all) == Set(units.map(\.key)) && all.count == units.count)
        for shard in 1...3 {
            let keys = plan.keys(ofShard: shard)
            #expect(keys == units.map(\.key).filter(keys.contains))
        }
    }

    @Test func measuredSecondsBalanceTheShardsLongestFirst() {
        // One long unit and six short ones: the long one alone, the short ones together.
        let units = [ShardUnit(key: "long", seconds: 60)] + (1...6).map { ShardUnit(key: "s\($0)", seconds: 10) }
        let plan = ShardPlan(units: units, count: 2)
        #expect(plan.estimatedSeconds == [60, 60])
        #expect(plan.keys(ofShard: 1) == ["long"])
        // A unit never measured weighs the median of those measured.
        // (10, 20, 30 measured: b weighs 20, and the two shards 40 each; weighed 1 s, they would be 31 and 30.)
        let mixed = ShardPlan(
            units: [ShardUnit(key: "a", seconds: 30), ShardUnit(key: "b"), ShardUnit(key: "c", seconds: 10),
                    ShardUnit(key: "d", seconds: 20)], count: 2)
        #expect(mixed.estimatedSeconds == [40, 40])
    }

    @Test func thePlanIsAFunctionOfItsInputsAlone() {
        let units = (1...9).map { ShardUnit(key: "scenario-\($0)", seconds: Double(($0 * 37) % 11 + 1)) }
        let a = ShardPlan(units: units, count: 4)
        let b = ShardPlan(units: units, count: 4)
        #expect(a == b && a.digest == b.digest)
        var changed = units
        changed[3].seconds = 99
        #expect(ShardPlan(units: changed, count: 4).digest != a.digest)
        #expect(ShardPlan(units: units, count: 3).digest != a.digest)
        // FNV-1a 64 of "a", the published test vector: the digest is that function on every machine.
        #expect(ShardPlan.digest(Data("a".utf8)) == "af63dc4c8601ec8c")
    }

    static func record(_ index: Int, of count: Int = 2, seed: String = "7", plan: String = "p") -> ShardRecord {
        ShardRecord(
            index: index, count: count, units: index == 1 ? ["a"] : ["b"], allUnits: ["a", "b"], plan: plan,
            identity: ["command": "run", "commit": "c1", "seed": seed])
    }

    @Test func theSetCheckNamesWhatIsWrong() throws {
        let ok = try ShardSet.order([ShardInput(directory: "B", record: Self.record(2)), ShardInput(directory: "A", record: Self.record(1))]) { $0 }
        #expect(ok.map(\.input.directory) == ["A", "B"])
        let cases: [([ShardInput], String)] = [
            ([ShardInput(directory: "A", record: Self.record(1))], "shard 2/2 is missing (given: 1/2 in A)"),
            ([ShardInput(directory: "A", record: Self.record(1)), ShardInput(directory: "B", record: Self.record(1))],
             "shard 1/2 is given twice, in A and in B"),
            ([ShardInput(directory: "A", record: Self.record(1)), ShardInput(directory: "B", record: Self.record(2, seed: "8"))],
             "the shards differ in seed: 7 in A, 8 in B"),
            ([ShardInput(directory: "A", record: Self.record(1)), ShardInput(directory: "B", record: Self.record(2, plan: "q"))],
             "A and B were split from different plans"),
            ([ShardInput(directory: "A", record: Self.record(1)), ShardInput(directory: "B", record: Self.record(2, of: 3))],
             "the shards differ in shard count: 2 in A, 3 in B"),
            ([ShardInput(directory: "A", record: nil)], "A is not a shard's output"),
            ([], "give the directories"),
        ]
        for (inputs, says) in cases {
            do {
                _ = try ShardSet.order(inputs) { $0 }
                Issue.record("accepted: \(says)")
            } catch { #expect(error.description.contains(says), "\(error)") }
        }
    }

    /// A shard's part of `SampleRun`'s report: the scenarios named, with a record.
    static func part(_ names: [String], index: Int, directory: String) -> RunMerge.Part {
        var report = SampleRun.report()
        let all = report.scenarios.map(\.name)
        report.scenarios = report.scenarios.filter { names.contains($0.name) }
        report.run.shard = ShardRecord(
            index: index, count: 2, units: names, allUnits: all, plan: "p", identity: [:])
        report.run.durationSeconds = Double(10 * index)
        let trace = names.map { TraceEntry(t: UInt64(index), .harness(.scenarioStarted(name: $0, profile: "p", seed: 1)), scenario: $0) }
        return RunMerge.Part(directory: directory, report: report, trace: trace)
    }

    @Test func mergedRunReportsTakeTheWholesOrderAndKeepEveryTraceEntry() throws {
        let whole = SampleRun.report().scenarios.map(\.name)
        let merged = try RunMerge.merge([
            Self.part([whole[1]], index: 1, directory: "A"), Self.part([whole[0], whole[2]], index: 2, directory: "B"),
        ])
        #expect(merged.report.scenarios.map(\.name) == whole)
        #expect(merged.report.scenarios == SampleRun.report().scenarios)
        #expect(merged.trace.count == 3 && merged.trace.map(\.t) == [1, 2, 2])
        #expect(merged.report.run.shard == nil && merged.report.run.durationSeconds == 20)
        #expect(merged.report.run.mergedFrom?.map(\.directory) == ["A", "B"])
    }

    @Test func aScenarioNoShardOrTwoShardsPlayedIsRefused() {
        let whole = SampleRun.report().scenarios.map(\.name)
        #expect(throws: ShardMergeError.self) {
            try RunMerge.merge([Self.part([whole[0]], index: 1, directory: "A"), Self.part([whole[1]], index: 2, directory: "B")])
        }
        #expect(throws: ShardMergeError.self) {
            try RunMerge.merge([
                Self.part([whole[0], whole[1]], index: 1, directory: "A"), Self.part([whole[1], whole[2]], index: 2, directory: "B"),
            ])
        }
    }
}

/// `ChaosMerge`: a sharded campaign's summaries and coverage joined.
@Suite struct ChaosMergeTests {
    static func input(_ label: String, outcome: ChaosInputSummary.Outcome = .pass, parent: String? = nil) -> ChaosInputSummary {
        ChaosInputSummary(
            label: label, seed: UInt64(label.split(separator: "-").last.flatMap { UInt64($0) } ?? 0), parent: parent,
            file: "\(label).yaml", reports: label, steps: 3, outcome: outcome, failure: outcome == .fail ? "integrity" : nil,
            exercised: ["integrity"], wallSeconds: 2, newPairs: [], shrunk: nil)
    }

    static func coverage(_ pairs: [(String, [String])]) -> ChaosCoverage {
        ChaosCoverage(
            coverage: RunCoverage(
                meaningful: pairs.map { MeaningfulPairCoverage(
                    pair: SituationPair(incident: $0.0, context: "phase:x"), properties: [], why: "", scenarios: $0.1) },
                otherPairs: []),
            growth: [])
    }

    static func part(_ index: Int, _ inputs: [ChaosInputSummary], _ coverage: ChaosCoverage, seconds: Double) -> ChaosMerge.Part {
        var summary = ChaosSummary(
            profile: "p", profilePath: "p.yaml", agent: "deadzone", wallSeconds: seconds, stop: "every input was played",
            summary: "", inputs: inputs)
        summary.shard = ShardRecord(
            index: index, count: 2, units: inputs.filter { $0.parent == nil }.map(\.label),
            allUnits: ["seed-1", "seed-2", "seed-3"], plan: "p", identity: [:])
        return ChaosMerge.Part(directory: "c\(index)", summary: summary, coverage: coverage)
    }

    @Test func theWholeCampaignHasEveryInputInTheSeedsOrderAndTheUnitedCoverage() throws {
        let merged = try ChaosMerge.merge([
            Self.part(1, [Self.input("seed-1"), Self.input("seed-3", outcome: .fail), Self.input("s1-mutant-1", parent: "seed-1")],
                      Self.coverage([("a", ["seed-3"]), ("b", [])]), seconds: 40),
            Self.part(2, [Self.input("seed-2")], Self.coverage([("a", ["seed-2"]), ("b", ["seed-2"])]), seconds: 30),
        ])
        #expect(merged.summary.inputs.map(\.label) == ["seed-1", "seed-2", "seed-3", "s1-mutant-1"])
        #expect(merged.coverage.coverage.meaningful.map(\.scenarios) == [["seed-2", "seed-3"], ["seed-2"]])
        #expect(!merged.summary.passed && merged.summary.wallSeconds == 40 && merged.summary.mergedFrom?.count == 2)
        #expect(merged.summary.summary.hasPrefix("chaos, merged from 2 shards: 3 of 4 inputs passed, 1 failed (seed-3); coverage: 2 of 2"))
    }

    @Test func anInputTwoShardsPlayedIsRefused() {
        #expect(throws: ShardMergeError.self) {
            try ChaosMerge.merge([
                Self.part(1, [Self.input("seed-1")], Self.coverage([]), seconds: 1),
                Self.part(2, [Self.input("seed-1")], Self.coverage([]), seconds: 1),
            ])
        }
    }
}
