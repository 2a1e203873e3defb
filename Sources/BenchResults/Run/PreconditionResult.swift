/// Whether a scenario's precondition held, and the evidence (`report.json`:
/// `scenarios[].preconditions`).
public struct PreconditionResult: Sendable, Hashable, Codable {
    public var name: String
    public var met: Bool
    /// What happened that meets it, or what did not happen.
    public var detail: String

    /// A result.
    public init(name: String, met: Bool, detail: String) {
        self.name = name
        self.met = met
        self.detail = detail
    }

    /// What a check returns.
    public struct Outcome: Sendable {
        public var met: Bool
        public var detail: String

        /// It happened: `detail` says where.
        public static func met(_ detail: String) -> Outcome { Outcome(met: true, detail: detail) }
        /// It did not: `detail` says what was missing.
        public static func unmet(_ detail: String) -> Outcome { Outcome(met: false, detail: detail) }
    }
}
