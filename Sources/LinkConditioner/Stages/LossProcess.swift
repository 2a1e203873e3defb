import BenchCore

/// Decides, quantum by quantum, whether a link loses it.
///
/// Holds the Gilbert-Elliott state between quanta, so it belongs to one link
/// direction (the state is shared by all the connections of that link, like the
/// radio conditions it stands for). Randomness comes from the caller's generator.
struct LossProcess: Sendable {
    private(set) var model: LossModel
    /// Gilbert-Elliott: true while in the bad state.
    private(set) var isInBadState = false

    init(model: LossModel) {
        self.model = model
    }

    /// Switches model. A Gilbert-Elliott link keeps its current state across a
    /// change of its probabilities; any other model starts over in the good state.
    mutating func update(model newModel: LossModel) {
        if case .gilbertElliott = newModel {} else { isInBadState = false }
        model = newModel
    }

    /// Whether the next quantum is lost. The Gilbert-Elliott state is used for this
    /// quantum and then moves once (good→bad with `goodToBad`, bad→good with `badToGood`).
    mutating func nextQuantumIsLost(using generator: inout SeededGenerator) -> Bool {
        switch model {
        case .none:
            return false
        case .bernoulli(let p):
            return generator.chance(p)
        case let .gilbertElliott(goodToBad, badToGood, lossInGood, lossInBad):
            let lost = generator.chance(isInBadState ? lossInBad : lossInGood)
            if isInBadState {
                if generator.chance(badToGood) { isInBadState = false }
            } else if generator.chance(goodToBad) {
                isInBadState = true
            }
            return lost
        }
    }
}
