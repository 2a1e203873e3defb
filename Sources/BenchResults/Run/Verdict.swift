import Foundation

/// Whether a property held over a scenario's trace, and the evidence: the events and
/// times that prove it (for a pass) or that break it (for a failure).
public struct Verdict: Sendable, Hashable, Codable {
    /// The property's stable identifier, e.g. `auto-suspend-on-disconnect`.
    public var property: String
    public var outcome: Outcome
    /// One sentence for people: what was checked and what was found.
    public var summary: String
    /// The events behind the verdict, in time order.
    public var evidence: [Evidence]

    /// Passed, failed, or not applicable to what the scenario did (e.g. no protected
    /// download for the license property), which counts as neither.
    public enum Outcome: String, Sendable, Hashable, Codable {
        case passed, failed, notApplicable = "not_applicable"
    }

    /// Creates a verdict.
    public init(property: String, outcome: Outcome, summary: String, evidence: [Evidence] = []) {
        self.property = property
        self.outcome = outcome
        self.summary = summary
        self.evidence = evidence
    }

    public var failed: Bool { outcome == .failed }
}

/// One piece of evidence: a time in the trace and what happened then.
public struct Evidence: Sendable, Hashable, Codable {
    /// Nanoseconds since the run's epoch (the trace entry's `t`).
    public var t: UInt64
    /// What happened, in words (e.g. `download 3f2a… downloading → suspended(network)`).
    public var text: String
    /// For a violation, the obligation it broke (docs/obligations.md), e.g. `hold-pause`;
    /// nil for supporting evidence. Absent from the JSON when nil.
    public var obligation: String?

    /// Creates evidence; `obligation` names what a violation broke.
    public init(t: UInt64, _ text: String, obligation: String? = nil) {
        self.t = t
        self.text = text
        self.obligation = obligation
    }
}
