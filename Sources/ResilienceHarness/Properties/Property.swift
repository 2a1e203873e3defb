/// One property of the harness: a pure rule over a scenario's trace.
///
/// The suite is `Properties.all`; the runner evaluates each over the scenario's
/// `ScenarioTrace` (on any thread: rules are pure functions of their arguments) and
/// stores the returned `Verdict` in the `ScenarioResult`.
public struct Property: Sendable, Identifiable {
    /// Stable kebab-case identifier, e.g. `auto-suspend-on-disconnect`; the verdict's `property`.
    public let id: String
    /// One sentence: what the property asserts.
    public let description: String
    private let rule: @Sendable (ScenarioTrace, PropertyContext) -> Verdict

    /// A property named `id` that judges with `rule`.
    public init(
        id: String, description: String, rule: @escaping @Sendable (ScenarioTrace, PropertyContext) -> Verdict
    ) {
        self.id = id
        self.description = description
        self.rule = rule
    }

    /// Judges `trace` under `context`. Never traps: a trace it cannot make sense of
    /// gives a failed or not-applicable verdict that says why.
    public func evaluate(_ trace: ScenarioTrace, _ context: PropertyContext) -> Verdict {
        rule(trace, context)
    }
}

/// The suite of properties DESIGN.md §5 requires.
public enum Properties {
    /// Every property, in the order reports list them.
    public static let all: [Property] = [
        .autoSuspendOnDisconnect, .cellularPolicy, .crashRecovery, .licenseBeforeBackground,
        .legalTransitions, .monotonicProgress, .integrity, .cancelDeleteClean, .pauseHolds,
        .expiredRentalRefusesPlayback, .boundedRetries, .offlinePlayback, .liveness, .justifiedFailure,
    ]

    /// The property with `id`, nil when there is none.
    public static func named(_ id: String) -> Property? {
        all.first { $0.id == id }
    }

    /// Evaluates every property of `all` (or of `ids`, in that order, unknown ones
    /// skipped) over `trace`.
    public static func evaluate(
        _ trace: ScenarioTrace, _ context: PropertyContext, only ids: [String]? = nil
    ) -> [Verdict] {
        let chosen = ids.map { $0.compactMap(named) } ?? all
        return chosen.map { $0.evaluate(trace, context) }
    }
}
