import BenchCore

/// What a chaos scenario is generated from: a seed, and the mutations a coverage-guided
/// campaign (`ChaosGuide`) made to it. A genome with no mutation is the seed's scenario,
/// byte for byte as `bench chaos --seeds N` writes it.
///
/// A mutation never edits steps: it changes the random draws the generator makes from
/// one event on (a *reroll*) or how many events it plays, so that every mutant is still
/// a scenario the generator could have written, with the generator's guarantees (no
/// demand a correct app could not meet, every event ending with the network as it was).
public struct ChaosGenome: Sendable, Hashable, CustomStringConvertible {
    /// From event `event` (1-based) on, the generator draws from a stream of its own,
    /// named by `variant`, instead of the seed's.
    public struct Reroll: Sendable, Hashable {
        public var event: Int
        public var variant: UInt64

        public init(event: Int, variant: UInt64) {
            self.event = event
            self.variant = variant
        }
    }

    /// The seed: the scenario's opening (setting, requests, how many events) and every
    /// draw before the first reroll.
    public var seed: UInt64
    /// The rerolls, by increasing event.
    public private(set) var rerolls: [Reroll]
    /// Events added to (or, below zero, taken from) the number the seed draws.
    public private(set) var extraEvents: Int

    /// The most events a mutation may add or take away.
    public static let extraEventBound = 4

    /// The seed's own scenario, or a mutant of it.
    public init(seed: UInt64, rerolls: [Reroll] = [], extraEvents: Int = 0) {
        self.seed = seed
        self.rerolls = Self.normalised(rerolls)
        self.extraEvents = min(max(extraEvents, -2), Self.extraEventBound)
    }

    /// Whether this is the seed's own scenario.
    public var isSeed: Bool { rerolls.isEmpty && extraEvents == 0 }

    /// The stream variant the generator switches to at `event`, if a reroll starts there.
    func reroll(at event: Int) -> UInt64? {
        rerolls.first { $0.event == event }?.variant
    }

    /// `seed 17`, or `seed 17, events from 3 rerolled (91), 1 event more`.
    public var description: String {
        var parts = ["seed \(seed)"]
        for reroll in rerolls { parts.append("events from \(reroll.event) rerolled (\(reroll.variant))") }
        if extraEvents != 0 {
            parts.append("\(abs(extraEvents)) event\(abs(extraEvents) == 1 ? "" : "s") \(extraEvents > 0 ? "more" : "fewer")")
        }
        return parts.joined(separator: ", ")
    }

    /// One mutation of this genome, drawn from `rng`, for a scenario of `events` events:
    /// its tail rerolled from an event on; one stretch rerolled, from an event to the
    /// parent's next reroll (after it the draws are the parent's; the scenario around
    /// them may still differ, as earlier events moved the plan's clock and downloads);
    /// or an event more or fewer.
    public func mutated(events: Int, using rng: inout SeededGenerator) -> ChaosGenome {
        var next = self
        let event = rng.int(in: 1...max(1, events))
        let variant = rng.next()
        switch rng.below(4) {
        case 0:
            next.rerolls = rerolls.filter { $0.event < event } + [Reroll(event: event, variant: variant)]
        case 1:
            // A reroll starts a stream afresh, so the events from the next reroll on draw
            // what the parent's drew: only the stretch up to it is new.
            next.rerolls = Self.normalised(rerolls.filter { $0.event != event } + [Reroll(event: event, variant: variant)])
        case 2 where extraEvents < Self.extraEventBound:
            next.extraEvents = extraEvents + 1
        default:
            if extraEvents > -2, events > 2 {
                next.extraEvents = extraEvents - 1
            } else {
                next.rerolls = rerolls.filter { $0.event < event } + [Reroll(event: event, variant: variant)]
            }
        }
        return next
    }

    private static func normalised(_ rerolls: [Reroll]) -> [Reroll] {
        var byEvent: [Int: UInt64] = [:]
        for reroll in rerolls where reroll.event >= 1 { byEvent[reroll.event] = reroll.variant }
        return byEvent.keys.sorted().map { Reroll(event: $0, variant: byEvent[$0]!) }
    }
}
