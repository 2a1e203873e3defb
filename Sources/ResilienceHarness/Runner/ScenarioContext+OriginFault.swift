import BenchCore
import FixtureOrigin

extension ScenarioContext {
    /// Adds `fault` to the origin's fault rules, named `origin-fault-N` (the first N no
    /// rule has), and notes it in the trace; returns the rule's id. Rules added before
    /// (another window, the slow license server) stay.
    /// - Throws: `ScenarioError.script` when the origin refuses the rule.
    public func openOriginFault(_ fault: ScenarioOriginFault) throws -> String {
        var rules = network.origin.faultRules
        let taken = Set(rules.rules.map(\.id))
        let id = (1...).lazy.map { "origin-fault-\($0)" }.first { !taken.contains($0) }!
        do { try rules.add(fault.rule(id: id)) } catch {
            throw ScenarioError.script("the origin refused the fault rule \(id): \(error)")
        }
        network.origin.setFaultRules(rules)
        collector.harness(.note("origin fault \(id)\(Self.faultBegins)\(fault.summary)"))
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

    /// Adds `rule` as it is (an outside test's rule, `POST /session/origin/faults`) and notes
    /// it in the trace as `openOriginFault` does, so that the judge treats it as a fault the
    /// harness opened.
    /// - Throws: the origin's refusal (an invalid rule, an id already taken).
    public func addOriginRule(_ rule: FaultRule) throws(FaultRuleSetError) {
        var rules = network.origin.faultRules
        try rules.add(rule)
        network.origin.setFaultRules(rules)
        let method = rule.method.map { "\($0) " } ?? ""
        collector.harness(.note("origin fault \(rule.id)\(Self.faultBegins)\(rule.fault) on \(method)\(rule.path.text)"))
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
        var rules = network.origin.faultRules
        let fired = rules.fired[id, default: 0]
        guard rules.remove(id: id) != nil else { return false }
        network.origin.setFaultRules(rules)
        collector.harness(.note("origin fault \(id) ends: it hit \(fired) request\(fired == 1 ? "" : "s")"))
        return true
    }
}
