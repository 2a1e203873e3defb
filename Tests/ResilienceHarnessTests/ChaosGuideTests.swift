import BenchResults
@testable import ResilienceHarness
import Testing

/// The coverage-guided campaign's choices (`ChaosGuide`), fed made-up coverage: which
/// inputs it keeps, what it plays next, when it stops.
@Suite struct ChaosGuideTests {
    let generator = ChaosGenerator(profileName: "flaky-wifi")
    let meaningful: Set<String> = ["a × x", "b × x", "c × x"]

    static func pair(_ id: String) -> SituationPair {
        let parts = id.components(separatedBy: " × ")
        return SituationPair(incident: parts[0], context: parts[1])
    }

    /// The guide's next input, which must come.
    static func next(_ guide: inout ChaosGuide, _ why: String = "an input") throws -> ChaosGuide.Input {
        let input = guide.next(elapsed: .zero)
        return try #require(input, "\(why)")
    }

    func guide(_ seeds: [UInt64], _ guidance: ChaosGuidance?) -> ChaosGuide {
        ChaosGuide(seeds: seeds, generator: generator, guidance: guidance, meaningful: meaningful)
    }

    @Test func withoutGuidanceItPlaysTheSeedsInOrderThenStops() {
        var guide = guide([4, 2, 9], nil)
        var labels: [String] = []
        while let input = guide.next(elapsed: .zero) {
            labels.append(input.label)
            guide.record(input, pairs: [Self.pair("a × x")])
        }
        #expect(labels == ["seed-4", "seed-2", "seed-9"])
        #expect(guide.stop == .seedsPlayed && guide.mutants == 0)
    }

    @Test func anInputThatReachedANewPairIsKeptAndMutated() throws {
        var guide = guide([1, 2], ChaosGuidance(runs: 12))
        let first = try Self.next(&guide)
        #expect(guide.record(first, pairs: [Self.pair("a × x"), Self.pair("z × y")]).map(\.id) == ["a × x", "z × y"])
        let second = try Self.next(&guide)
        #expect(guide.record(second, pairs: [Self.pair("a × x")]).isEmpty, "nothing new: not kept")
        #expect(guide.corpusSize == 1 && guide.meaningfulReached == 1 && guide.pairsReached == 2)
        // After the seeds: three mutants of the only input kept, then a fresh seed, and so on.
        var next: [ChaosGuide.Input] = []
        for _ in 0..<8 {
            let input = try Self.next(&guide)
            guide.record(input, pairs: [])
            next.append(input)
        }
        #expect(next.map(\.label) == ["mutant-1", "mutant-2", "mutant-3", "seed-3", "mutant-4", "mutant-5", "mutant-6", "seed-4"])
        #expect(next.filter { $0.mutant != nil }.allSatisfy { $0.parent == "seed-1" && $0.genome.seed == 1 && !$0.genome.isSeed })
        #expect(Set(next.map(\.genome)).count == next.count, "no genome played twice")
    }

    @Test func itFavoursTheInputThatReachedARarePair() throws {
        var guide = guide([1, 2], ChaosGuidance(runs: 400))
        for (seed, pairs) in [(1, ["a × x"]), (2, ["b × x"])] {
            let input = try Self.next(&guide)
            #expect(input.genome.seed == UInt64(seed))
            guide.record(input, pairs: pairs.map(Self.pair))
        }
        // Many later inputs reach a × x again: seed 2 (b × x, reached once) is the rarer.
        var parents: [String: Int] = [:]
        for _ in 0..<200 {
            guard let input = guide.next(elapsed: .zero) else { break }
            if let parent = input.parent { parents[parent, default: 0] += 1 }
            guide.record(input, pairs: [Self.pair("a × x")])
        }
        #expect(parents["seed-2", default: 0] > parents["seed-1", default: 0], "\(parents)")
    }

    @Test func itStopsAtTheGoal() throws {
        var guide = guide([1, 2, 3], ChaosGuidance(goal: 2))
        let first = try Self.next(&guide)
        guide.record(first, pairs: [Self.pair("a × x"), Self.pair("q × r")])
        let second = try Self.next(&guide, "one meaningful pair of a goal of two")
        guide.record(second, pairs: [Self.pair("c × x")])
        #expect(guide.next(elapsed: .zero) == nil && guide.stop == .goalReached && guide.started == 2)
    }

    @Test func itStopsAtTheRunBoundAndTheTimeBudget() throws {
        var runs = guide([1, 2, 3], ChaosGuidance(runs: 2))
        #expect(runs.next(elapsed: .zero) != nil && runs.next(elapsed: .zero) != nil)
        #expect(runs.next(elapsed: .zero) == nil && runs.stop == .runBudget)

        var time = guide([1, 2], ChaosGuidance(timeBudget: .seconds(60)))
        #expect(time.next(elapsed: .seconds(59)) != nil)
        #expect(time.next(elapsed: .seconds(60)) == nil && time.stop == .timeBudget)
        #expect(time.next(elapsed: .zero) == nil, "a stopped campaign stays stopped")
    }

    @Test func theSameSeedsAndCoverageGiveTheSameCampaign() {
        func campaign() -> [ChaosGenome] {
            var guide = guide([5, 6], ChaosGuidance(runs: 15))
            var genomes: [ChaosGenome] = []
            var index = 0
            while let input = guide.next(elapsed: .zero) {
                genomes.append(input.genome)
                index += 1
                guide.record(input, pairs: index % 3 == 0 ? [Self.pair("p\(index) × x")] : [])
            }
            return genomes
        }
        let first = campaign()
        #expect(first.count == 15 && first == campaign())
    }
}
