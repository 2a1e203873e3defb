import Foundation

extension Baseline {
    /// Why a gate run of `scenarios` under the profile named `profile`, with the app
    /// `agent`, must not be compared with this baseline, or nil when it may: metrics of
    /// another profile, another app or another scenario set are not comparable, and a
    /// gate that compared them would pass or fail for no reason. Called by `bench gate`
    /// before it runs anything; `path` names the file in the message, which says how
    /// to make the right baseline.
    public func refusal(profile: String, agent: String, scenarios: [String], path: String) -> String? {
        let remake = "make one for this run with `bench gate --calibrate 5 --baseline \(path)` (same options), "
            + "or pass --baseline with the right file"
        guard let made = self.profile else {
            return "the baseline \(path) does not say which profile it was made with; \(remake)"
        }
        guard made == profile else {
            return "the baseline \(path) was made with the profile \(made), this run uses \(profile): \(remake)"
        }
        if let refusal = agentRefusal(for: agent, path: path) { return refusal }
        let unknown = scenarios.filter { self.scenarios[$0] == nil }
        guard unknown.isEmpty else {
            return "the baseline \(path) was made with another scenario set: it has no "
                + unknown.joined(separator: ", ") + " (it has " + self.scenarios.keys.sorted().joined(separator: ", ")
                + "); \(remake)"
        }
        return nil
    }

    /// Why a run of `agent` must not be gated on this baseline (it was made with another
    /// app), or nil when it may. A baseline without an agent was made with `deadzone`.
    public func agentRefusal(for agent: String, path: String) -> String? {
        let made = self.agent ?? "deadzone"
        guard made != agent else { return nil }
        return "the baseline \(path) was made with the agent \"\(made)\", not \"\(agent)\": metrics of different apps "
            + "are not comparable; pass --baseline with a baseline of this agent, or make one with --update-baseline"
    }

    /// What a gate report says when this baseline was made with another concurrency than
    /// the run (`jobs`, the most scenarios it played at once), or nil when they agree.
    /// Not a refusal: each scenario has its own origin, conditioner and app, so its
    /// metrics stay comparable, but a baseline made under heavier load is looser.
    public func concurrencyNote(jobs: Int) -> String? {
        let made = self.jobs ?? 1
        guard made != jobs else { return nil }
        return "The baseline was made playing \(made) scenario\(made == 1 ? "" : "s") at once, this run \(jobs): "
            + "times measured under other load; recalibrate with the same --jobs to compare like with like."
    }
}
