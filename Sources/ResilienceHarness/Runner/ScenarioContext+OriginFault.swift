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
        collector.harness(.note("origin fault \(id) begins: \(fault.summary)"))
        return id
    }

    /// Removes the origin's fault rule `id` and notes how often it fired.
    public func closeOriginFault(_ id: String) {
        var rules = network.origin.faultRules
        let fired = rules.fired[id, default: 0]
        guard rules.remove(id: id) != nil else { return }
        network.origin.setFaultRules(rules)
        collector.harness(.note("origin fault \(id) ends: it hit \(fired) request\(fired == 1 ? "" : "s")"))
    }
}
