import Foundation

/// What one scenario × property cell of a verdict grid shows (`report.html`, the
/// matrix): the verdict, or why there is none that counts.
public enum PropertyCell: String, Sendable, Hashable, CaseIterable {
    case passed
    /// The verdict failed: its evidence says what the harness saw.
    case failed
    /// The verdict did not fail, but the scenario did not create the situation the
    /// property is asserted in (a precondition unmet): unproven, never passed.
    case preconditionUnmet = "precondition unmet"
    /// The scenario was not played: the app does not declare what it needs.
    case unsupported
    /// The property did not apply to what this scenario did (`not_applicable`).
    case notExercised = "not exercised"
    /// No verdict at all (a scenario that ended before it was judged).
    case absent = "no verdict"

    /// The mark a grid cell shows.
    public var symbol: String {
        switch self {
        case .passed: "✓"
        case .failed: "✗"
        case .preconditionUnmet: "!"
        case .unsupported: "–"
        case .notExercised: "·"
        case .absent: "?"
        }
    }
}

extension ScenarioResult {
    /// The cell of `property` for this scenario. A failed verdict is shown failed
    /// whatever else holds; a property the scenario asserts is shown `preconditionUnmet`
    /// when one of its preconditions was not met (in a report without `asserts`, every
    /// property is taken as asserted).
    public func cell(_ property: String) -> PropertyCell {
        if unsupported != nil { return .unsupported }
        guard let verdict = verdicts.first(where: { $0.property == property }) else { return .absent }
        if verdict.failed { return .failed }
        let unmet = preconditions.contains { !$0.met }
        if unmet, asserts?.contains(property) ?? true { return .preconditionUnmet }
        return verdict.outcome == .passed ? .passed : .notExercised
    }
}

extension RunReport {
    /// The properties judged in this run, as grid columns: in the order the scenarios'
    /// verdicts first name them.
    public var judgedProperties: [String] {
        var seen = Set<String>(), ordered: [String] = []
        for scenario in scenarios {
            for verdict in scenario.verdicts where seen.insert(verdict.property).inserted { ordered.append(verdict.property) }
        }
        return ordered
    }
}
