import BenchCore
import Foundation

/// A fault rule that fired for one request: what the server must do.
public struct FaultDecision: Sendable, Hashable {
    /// The `id` of the rule that fired.
    public var ruleID: String
    /// Its position in `FaultRuleSet.rules` at the time.
    public var ruleIndex: Int
    /// What to do.
    public var fault: HTTPFault
    /// How many times the rule has fired, this time included (1 the first time).
    public var firing: Int

    public init(ruleID: String, ruleIndex: Int, fault: HTTPFault, firing: Int) {
        self.ruleID = ruleID
        self.ruleIndex = ruleIndex
        self.fault = fault
        self.firing = firing
    }
}

/// Why a rule set or a change to it was refused. `description` says what to fix.
public struct FaultRuleSetError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The origin's ordered HTTP fault rules, their seeded random source and how often
/// each has fired.
///
/// A value type with `mutating` methods: the HTTP server holds one behind a lock,
/// calls `decide(method:path:)` once per request, and lets the control API change
/// rules live (`add`, `remove`, `replace`). Rules are loaded at start from JSON:
/// ```json
/// {"seed": 42,
///  "rules": [
///    {"id": "gone", "path": "/videos/v3/**", "fault": {"type": "status", "code": 410}},
///    {"path": "/videos/*/480p/seg*.ts", "fault": {"type": "truncate_body", "after_bytes": 1000},
///     "probability": "10%", "count": 5}
///  ]}
/// ```
/// `seed` defaults to 0. `parse(json:)` reads it, `load(contentsOf:)` reads a file
/// (`bench origin --faults FILE`). Encoding also writes `fired` (rule id → times fired) so a
/// snapshot keeps exhausted counts; decoding accepts it. The random state restarts
/// from `seed` on decoding.
public struct FaultRuleSet: Sendable, Codable {
    /// The rules, first match first.
    public private(set) var rules: [FaultRule]
    /// The seed of the random draws for `probability`.
    public let seed: UInt64
    /// Times each rule (by id) has fired; rules never fired are absent.
    public private(set) var fired: [String: Int]
    private var generator: SeededGenerator

    /// Creates a set; refuses invalid rules and duplicate ids.
    public init(rules: [FaultRule] = [], seed: UInt64 = 0) throws(FaultRuleSetError) {
        try Self.validate(rules)
        self.rules = rules
        self.seed = seed
        self.fired = [:]
        self.generator = SeededGenerator(seed: seed).derived("http-faults")
    }

    /// The fault for one request, or nil: the first rule that applies to `method` and
    /// `path` (the query string, from `?`, is ignored), has not used up its `count`,
    /// and wins its `probability` draw. Firing counts it. A draw is made only for
    /// rules with 0 < probability < 1, so adding a certain rule does not shift the
    /// random sequence of the others.
    public mutating func decide(method: String, path: String) -> FaultDecision? {
        let bare = path.firstIndex(of: "?").map { String(path[..<$0]) } ?? path
        for (index, rule) in rules.enumerated() where rule.applies(method: method, path: bare) {
            let times = fired[rule.id, default: 0]
            if let count = rule.count, times >= count { continue }
            guard generator.chance(rule.probability) else { continue }
            fired[rule.id] = times + 1
            return FaultDecision(ruleID: rule.id, ruleIndex: index, fault: rule.fault, firing: times + 1)
        }
        return nil
    }

    /// How many more times the rule may fire; nil for unlimited or no such rule.
    public func remaining(ruleID: String) -> Int? {
        guard let rule = rules.first(where: { $0.id == ruleID }), let count = rule.count else { return nil }
        return max(0, count - fired[ruleID, default: 0])
    }

    /// Inserts `rule` at `index` (default: last). Refuses an invalid rule or a taken id.
    public mutating func add(_ rule: FaultRule, at index: Int? = nil) throws(FaultRuleSetError) {
        var updated = rules
        updated.insert(rule, at: min(max(index ?? rules.count, 0), rules.count))
        try Self.validate(updated)
        rules = updated
    }

    /// Removes the rule with `id`, and its count; returns it, or nil if there was none.
    @discardableResult
    public mutating func remove(id: String) -> FaultRule? {
        guard let index = rules.firstIndex(where: { $0.id == id }) else { return nil }
        fired[id] = nil
        return rules.remove(at: index)
    }

    /// Puts `rule` in the place of the rule with `id`, starting its count afresh.
    /// Refuses an unknown `id`, an invalid rule, or a new id that another rule has.
    public mutating func replace(id: String, with rule: FaultRule) throws(FaultRuleSetError) {
        guard let index = rules.firstIndex(where: { $0.id == id }) else {
            throw FaultRuleSetError("there is no fault rule '\(id)'")
        }
        var updated = rules
        updated[index] = rule
        try Self.validate(updated)
        rules = updated
        fired[id] = nil
        fired[rule.id] = nil
    }

    /// Replaces every rule and clears all counts (the random stream continues).
    public mutating func replaceAll(with newRules: [FaultRule]) throws(FaultRuleSetError) {
        try Self.validate(newRules)
        rules = newRules
        fired = [:]
    }

    private static func validate(_ rules: [FaultRule]) throws(FaultRuleSetError) {
        var seen: Set<String> = []
        for rule in rules {
            if let problem = rule.problem { throw FaultRuleSetError(problem) }
            guard seen.insert(rule.id).inserted else {
                throw FaultRuleSetError("two fault rules have the id '\(rule.id)'; give each rule a distinct id")
            }
        }
    }

    private enum CodingKeys: String, CodingKey { case seed, rules, fired }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            rules: try c.decodeIfPresent([FaultRule].self, forKey: .rules) ?? [],
            seed: try c.decodeIfPresent(UInt64.self, forKey: .seed) ?? 0)
        let counts = try c.decodeIfPresent([String: Int].self, forKey: .fired) ?? [:]
        fired = counts.filter { id, n in n > 0 && rules.contains { $0.id == id } }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(seed, forKey: .seed)
        try c.encode(rules, forKey: .rules)
        if !fired.isEmpty { try c.encode(fired, forKey: .fired) }
    }
}
