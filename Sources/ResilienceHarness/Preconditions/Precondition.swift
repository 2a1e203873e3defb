import BenchCore

/// A condition a scenario exists to create: an outage that hit a transfer in flight, a
/// kill while bytes were flowing, a license exchange before the background. Judged, like
/// a property, from the evidence in the trace; when it did not happen, the scenario
/// proved nothing about the properties it is for and fails, saying why, whatever its
/// verdicts say.
public struct Precondition: Sendable {
    /// What must have happened, e.g. `a reset outage hit a transfer in flight`.
    public let name: String
    private let check: @Sendable (ScenarioTrace, PropertyContext) -> PreconditionResult.Outcome

    /// A precondition named `name` checked by `check` (a pure function of the trace).
    public init(
        _ name: String, check: @escaping @Sendable (ScenarioTrace, PropertyContext) -> PreconditionResult.Outcome
    ) {
        self.name = name
        self.check = check
    }

    /// Whether it held in `trace`, with the evidence.
    public func evaluate(_ trace: ScenarioTrace, _ context: PropertyContext) -> PreconditionResult {
        let outcome = check(trace, context)
        return PreconditionResult(name: name, met: outcome.met, detail: outcome.detail)
    }
}
