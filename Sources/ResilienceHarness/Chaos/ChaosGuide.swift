import BenchCore
import BenchResults

/// What a chaos campaign plays next, and when it stops. Without guidance it plays the
/// seeds it was given, in order. With guidance (`bench chaos --guided`) it plays them
/// first, then, as a coverage-guided fuzzer keeps the inputs that reach new code, keeps
/// every input whose run created a situation pair no earlier run had (its *corpus*) and
/// plays mutants of them (`ChaosGenome.mutated`), favouring inputs that reached rare
/// pairs and those chosen least, with a fresh seed every fourth pick; until the goal of
/// meaningful pairs is reached, or the runs or the time are spent.
///
/// A value: the runner feeds it each finished run's pairs (`record`) and asks it for the
/// next input (`next`) with the campaign's elapsed time, so it is tested without a clock.
public struct ChaosGuide: Sendable {
    /// One input to play: a genome, the file and report name it goes by (`seed-17`,
    /// `mutant-3`) and, for a mutant, the input it was made from.
    public struct Input: Sendable, Hashable {
        public var genome: ChaosGenome
        public var label: String
        public var mutant: Int?
        public var parent: String?
    }

    /// Why the campaign stopped starting inputs.
    public enum Stop: Sendable, Hashable {
        /// Every seed given was played (a campaign without guidance).
        case seedsPlayed
        /// The goal of meaningful pairs was reached.
        case goalReached
        /// The bound on runs, or on time, was reached.
        case runBudget, timeBudget
    }

    private struct Entry: Sendable {
        var input: Input
        var pairs: Set<String>
        var chosen = 0
    }

    private let generator: ChaosGenerator
    private let guidance: ChaosGuidance?
    private let meaningful: Set<String>
    private var seeds: ArraySlice<UInt64>
    private var nextFresh: UInt64
    private var rng: SeededGenerator
    private var corpus: [Entry] = []
    private var played: Set<ChaosGenome> = []
    private var picks = 0
    /// How many inputs reached each pair (its id).
    public private(set) var reached: [String: Int] = [:]
    /// Inputs started, and mutants among them.
    public private(set) var started = 0
    public private(set) var mutants = 0
    public private(set) var stop: Stop?

    /// A guide for `seeds`, with `guidance` or none; `meaningful` the ids of the model's
    /// meaningful pairs (what the goal counts).
    public init(seeds: [UInt64], generator: ChaosGenerator, guidance: ChaosGuidance?, meaningful: Set<String>) {
        self.generator = generator
        self.guidance = guidance
        self.meaningful = meaningful
        self.seeds = seeds[...]
        nextFresh = guidance?.freshSeeds?.start ?? (seeds.max() ?? 0) &+ 1
        rng = SeededGenerator(seed: seeds.first ?? 0).derived("chaos-guide")
    }

    /// The meaningful pairs reached so far, and every pair.
    public var meaningfulReached: Int { reached.keys.filter(meaningful.contains).count }
    public var pairsReached: Int { reached.count }
    /// How many inputs the corpus holds (those that reached a pair first).
    public var corpusSize: Int { corpus.count }

    /// The next input to start, `elapsed` into the campaign; nil once it stops (`stop`
    /// says why).
    public mutating func next(elapsed: Duration) -> Input? {
        if stop != nil { return nil }
        if let guidance {
            if let goal = guidance.goal, meaningfulReached >= goal { return halt(.goalReached) }
            if started >= guidance.runs { return halt(.runBudget) }
            if elapsed >= guidance.timeBudget { return halt(.timeBudget) }
        }
        if let seed = seeds.popFirst() { return start(ChaosGenome(seed: seed), parent: nil) }
        guard guidance != nil else { return halt(.seedsPlayed) }
        picks += 1
        if !corpus.isEmpty, picks % 4 != 0, let mutant = mutantOfAFavourite() { return mutant }
        let step = guidance?.freshSeeds?.step ?? 1
        while played.contains(ChaosGenome(seed: nextFresh)) { nextFresh &+= step }
        defer { nextFresh &+= step }
        return start(ChaosGenome(seed: nextFresh), parent: nil)
    }

    /// Records what `input`'s run created; returns the pairs no earlier input had
    /// reached (the input joins the corpus when there are any).
    @discardableResult
    public mutating func record(_ input: Input, pairs: [SituationPair]) -> [SituationPair] {
        let fresh = Set(pairs).filter { reached[$0.id] == nil }.sorted()
        for pair in Set(pairs) { reached[pair.id, default: 0] += 1 }
        if !fresh.isEmpty { corpus.append(Entry(input: input, pairs: Set(pairs.map(\.id)))) }
        return fresh
    }

    /// `seed-7`: a seed's input label in chaos.json, and its unit key when `--shard`
    /// splits the seeds (so `--durations` finds a campaign's seconds by it).
    public static func seedLabel(_ seed: UInt64) -> String { "seed-\(seed)" }

    private mutating func halt(_ reason: Stop) -> Input? {
        stop = reason
        return nil
    }

    private mutating func start(_ genome: ChaosGenome, parent: Input?) -> Input {
        played.insert(genome)
        started += 1
        if parent == nil && genome.isSeed { return Input(genome: genome, label: Self.seedLabel(genome.seed)) }
        mutants += 1
        let label = (guidance?.labelPrefix ?? "") + "mutant-\(mutants)"
        return Input(genome: genome, label: label, mutant: mutants, parent: parent?.label)
    }

    /// A mutant of a corpus input, chosen by the rarity of the pairs it reached and how
    /// seldom it was chosen; nil when ten tries gave only genomes already played.
    private mutating func mutantOfAFavourite() -> Input? {
        let weights = corpus.map { entry in
            let rarity = entry.pairs.reduce(0.0) { $0 + 1 / Double(max(1, reached[$1] ?? 1)) }
            return max(1, Int((1000 * rarity / Double(1 + entry.chosen)).rounded()))
        }
        let index = rng.weighted(Array(zip(corpus.indices, weights)))
        corpus[index].chosen += 1
        let parent = corpus[index].input
        let events = generator.eventCount(parent.genome)
        for _ in 0..<10 {
            let genome = parent.genome.mutated(events: events, using: &rng)
            if !played.contains(genome) { return start(genome, parent: parent) }
        }
        return nil
    }
}

/// How a guided campaign runs (`bench chaos --guided`): its goal and its bounds.
public struct ChaosGuidance: Sendable, Hashable {
    /// Stop once the campaign has reached this many of the model's meaningful pairs.
    public var goal: Int?
    /// The most inputs it starts, and the time after which it starts none.
    public var runs: Int
    public var timeBudget: Duration
    /// Where fresh seeds (after the given ones) start and how far apart they are: a shard
    /// of a campaign (`--shard i/n`) draws them from its own residue class, so no two
    /// shards play the same one; nil: from one past the largest seed given, one by one.
    public var freshSeeds: FreshSeeds?
    /// Put before every mutant's label (`s2-` in shard 2: `s2-mutant-3`), so that the
    /// labels of a sharded campaign's shards do not collide when merged.
    public var labelPrefix = ""

    /// Fresh seeds `start`, `start + step`, …
    public struct FreshSeeds: Sendable, Hashable {
        public var start: UInt64
        public var step: UInt64

        public init(start: UInt64, step: UInt64) {
            self.start = start
            self.step = max(1, step)
        }
    }

    public init(goal: Int? = nil, runs: Int = 200, timeBudget: Duration = .seconds(1800)) {
        self.goal = goal
        self.runs = runs
        self.timeBudget = timeBudget
    }
}
