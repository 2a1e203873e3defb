import BenchCore
import FixtureOrigin

extension ScenarioContext {
    /// Adds `fault` to the origin's fault rules, named `origin-fault-N` (the first N no
    /// rule has), and notes it in the trace; returns the rule's id. Rules added before
    /// (another window, the slow license server) stay.
    /// - Throws: `ScenarioError.script` when the origin refuses the rule.
    public func openOriginFault(_ fault: ScenarioOriginFault) throws -> String {
        let taken = Set(network.origin.faultRules.rules.map(\.id))
        let id = (1...).lazy.map { "origin-fault-\($0)" }.first { !taken.contains($0) }!
        do { try addOriginRule(fault.rule(id: id), summary: fault.summary) } catch {
            throw ScenarioError.script("the origin refused the fault rule \(id): \(error)")
        }
        return id
    }

    /// What separates a scenario fault's rule id from its summary in the note
    /// `openOriginFault` writes ("origin fault ID begins: SUMMARY").
    static let faultBegins = " begins: "

    /// The rule id and summary of a scenario fault the harness opened, from its note
    /// (`openOriginFault`); nil for any other note.
    nonisolated static func openedOriginFault(fromNote text: String) -> (rule: String, summary: String)? {
        guard text.hasPrefix("origin fault "), let separator = text.range(of: faultBegins) else { return nil }
        let rule = text[text.index(text.startIndex, offsetBy: "origin fault ".count)..<separator.lowerBound]
        return (String(rule), String(text[separator.upperBound...]))
    }

    /// Adds `rule` to the origin's rules (atomically: the counts of the rules already there
    /// keep every request they hit) and notes it in the trace (`origin fault ID begins:
    /// SUMMARY`), so that the report names it as a fault the harness opened. `summary`
    /// defaults to the rule's fault and path (an outside test's rule, `POST
    /// /session/origin/faults`).
    /// - Throws: the origin's refusal (an invalid rule, an id already taken).
    public func addOriginRule(_ rule: FaultRule, summary: String? = nil) throws(FaultRuleSetError) {
        try network.origin.updateFaultRules { (rules: inout FaultRuleSet) throws(FaultRuleSetError) in try rules.add(rule) }
        let method = rule.method.map { "\($0) " } ?? ""
        collector.harness(.note("origin fault \(rule.id)\(Self.faultBegins)\(summary ?? "\(rule.fault) on \(method)\(rule.path.text)")"))
    }

    /// The origin's fault rules now, each with how many requests it has hit.
    public var originRules: [(rule: FaultRule, fired: Int)] {
        let rules = network.origin.faultRules
        return rules.rules.map { ($0, rules.fired[$0.id, default: 0]) }
    }

    /// Removes the origin's fault rule `id` and notes how often it fired; false when there
    /// was no such rule.
    @discardableResult
    public func closeOriginFault(_ id: String) -> Bool {
        // Removed and counted under the rules' lock: a request hit between a read and a
        // write would be lost from the count.
        let fired: Int? = try? network.origin.updateFaultRules { (rules: inout FaultRuleSet) throws(FaultRuleSetError) -> Int? in
            let fired = rules.fired[id, default: 0]
            return rules.remove(id: id) == nil ? nil : fired
        } ?? nil
        guard let fired else { return false }
        collector.harness(.note("origin fault \(id) ends: it hit \(fired) request\(fired == 1 ? "" : "s")"))
        return true
    }
}
