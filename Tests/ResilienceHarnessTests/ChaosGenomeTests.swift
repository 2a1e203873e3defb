import BenchCore
@testable import ResilienceHarness
import Testing

/// Mutants of a chaos scenario (`ChaosGenome`): a reroll changes the events from it on
/// and keeps those before it; a mutant is still a scenario the generator could write,
/// with every guarantee of a seed's.
@Suite struct ChaosGenomeTests {
    let generator = ChaosGenerator(profileName: "flaky-wifi")

    /// The steps before the note of event `index` (`chaos index/…`).
    static func before(event index: Int, in file: ScenarioFile) -> [ScenarioStep] {
        let at = file.steps.firstIndex { step in
            if case .note(let text) = step { text.hasPrefix("chaos \(index)/") } else { false }
        }
        return Array(file.steps[..<(at ?? file.steps.endIndex)])
    }

    @Test func aGenomeWithoutMutationIsTheSeedsScenario() {
        for seed: UInt64 in [1, 5, 99] {
            #expect(generator.scenario(ChaosGenome(seed: seed)).yaml == generator.scenario(seed: seed).yaml)
            #expect(ChaosGenome(seed: seed).isSeed)
        }
    }

    @Test func aRerollKeepsTheEventsBeforeItAndChangesTheRest() {
        for seed: UInt64 in 1...20 {
            let parent = generator.scenario(seed: seed)
            let events = generator.eventCount(ChaosGenome(seed: seed))
            let at = min(3, events)
            let mutant = generator.scenario(ChaosGenome(seed: seed, rerolls: [.init(event: at, variant: 7)]), mutant: 1)
            #expect(Self.before(event: at, in: mutant) == Self.before(event: at, in: parent), "seed \(seed)")
            #expect(mutant.steps != parent.steps, "seed \(seed): the reroll changed nothing")
            #expect(mutant.name == "chaos-\(seed)-m1" && mutant.summary.contains("mutant 1 of seed \(seed), events from \(at) rerolled (7)"))
        }
    }

    @Test func aStretchRerollLeavesTheParentsNextRerollsDraws() {
        // From the parent's reroll at 4 on, a child that rerolled the stretch 2–3 draws the
        // same stream; the plan's clock and downloads differ after another stretch, so the
        // event at 4 may still read otherwise. A child whose reroll at 4 is another draws
        // another stream: it reads the same far less often.
        let note = { (file: ScenarioFile) in
            file.steps.compactMap { step -> String? in
                if case .note(let text) = step, text.hasPrefix("chaos 4/") { text } else { nil }
            }
        }
        var kept = 0
        var control = 0
        for seed: UInt64 in 1...40 {
            let parent = note(generator.scenario(ChaosGenome(seed: seed, rerolls: [.init(event: 4, variant: 11)])))
            let child = ChaosGenome(seed: seed, rerolls: [.init(event: 2, variant: 5), .init(event: 4, variant: 11)])
            let other = ChaosGenome(seed: seed, rerolls: [.init(event: 2, variant: 5), .init(event: 4, variant: 12)])
            if note(generator.scenario(child)) == parent { kept += 1 }
            if note(generator.scenario(other)) == parent { control += 1 }
        }
        #expect(kept > 2 * control, "the same stream at 4: \(kept) of 40 read the same; another stream: \(control)")
    }

    @Test func extraEventsChangeTheEventCountWithinBounds() {
        let base = generator.eventCount(ChaosGenome(seed: 3))
        #expect(generator.eventCount(ChaosGenome(seed: 3, extraEvents: 2)) == base + 2)
        #expect(generator.eventCount(ChaosGenome(seed: 3, extraEvents: 99)) == base + ChaosGenome.extraEventBound)
        #expect(generator.eventCount(ChaosGenome(seed: 3, extraEvents: -99)) == max(2, base - 2))
        let file = generator.scenario(ChaosGenome(seed: 3, extraEvents: 1), mutant: 2)
        let notes = file.steps.compactMap { step -> String? in if case .note(let text) = step, text.hasPrefix("chaos ") { text } else { nil } }
        let events = notes.filter { !$0.hasPrefix("chaos:") }.map { String($0.split(separator: ":")[0]) }
        #expect(events == (1...(base + 1)).map { "chaos \($0)/\(base + 1)" }, "\(notes)")
    }

    @Test func mutationIsSeededAndAlwaysChangesTheGenome() {
        var first = SeededGenerator(seed: 42)
        var second = SeededGenerator(seed: 42)
        var genome = ChaosGenome(seed: 8)
        for _ in 0..<200 {
            let a = genome.mutated(events: 5, using: &first)
            #expect(a == genome.mutated(events: 5, using: &second))
            #expect(a != genome, "\(genome) mutated to itself")
            #expect(a.rerolls.map(\.event) == a.rerolls.map(\.event).sorted() && a.rerolls.allSatisfy { (1...5).contains($0.event) })
            genome = a
        }
    }

    @Test func mutantsAskNothingACorrectAppCouldNotDo() throws {
        var rng = SeededGenerator(seed: 2026)
        var files: [ScenarioFile] = []
        for seed: UInt64 in 1...25 {
            var genome = ChaosGenome(seed: seed)
            for round in 1...3 {
                genome = genome.mutated(events: generator.eventCount(genome), using: &rng)
                let file = generator.scenario(genome, mutant: round)
                #expect(try ScenarioFile.parse(yaml: file.yaml, file: "\(file.name).yaml") == file)
                files.append(file)
            }
        }
        ChaosGeneratorTests.expectNothingImpossible(in: files)
    }
}
