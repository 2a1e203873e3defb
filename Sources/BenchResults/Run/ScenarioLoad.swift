import Foundation

/// How loaded the machine was while a scenario played, as the harness saw it: how many
/// other scenarios played at the same time, and how late its own half-second timer woke.
///
/// The bounds the properties judge (suspend within the stall timeout, a license before
/// the background deadline) are never widened for load. When the timer ran late enough
/// to stretch one, a failed verdict says so (`ScenarioResult.notingLoad()`), so a reader
/// can tell a loaded machine from a slow app and rerun with `--jobs 1`.
public struct ScenarioLoad: Sendable, Hashable, Codable {
    /// The most other scenarios that played at the same time (0: it played alone).
    public var alongside: Int
    /// The latest the harness's half-second timer woke during the script, in seconds.
    public var timerLagMaxSeconds: Double

    /// Creates a load record.
    public init(alongside: Int, timerLagMaxSeconds: Double) {
        self.alongside = alongside
        self.timerLagMaxSeconds = timerLagMaxSeconds
    }

    /// A timer this late (250 ms, the smallest time bound a property judges with a margin
    /// of its own) may have stretched a time bound.
    public static let stretchingLagSeconds = 0.25

    /// The timer woke late enough to stretch a time bound.
    public var mayStretchBounds: Bool { timerLagMaxSeconds >= Self.stretchingLagSeconds }

    /// "alone, timer ≤ 3 ms late" or "with 5 other scenarios, timer ≤ 412 ms late".
    public var description: String {
        let who = alongside == 0 ? "alone" : "with \(alongside) other scenario\(alongside == 1 ? "" : "s")"
        return "\(who), timer ≤ \(Int((timerLagMaxSeconds * 1000).rounded())) ms late"
    }
}

extension ScenarioResult {
    /// This result with each failed verdict and unmet precondition saying the machine was
    /// loaded, when its timer woke late enough to stretch a time bound; unchanged otherwise.
    /// The outcome is never changed: a load note explains a failure, it does not excuse it.
    public func notingLoad() -> ScenarioResult {
        guard let load, load.mayStretchBounds else { return self }
        let note = " [Under load: the scenario ran \(load.description); a time bound may have been stretched by the "
            + "machine rather than the app. Rerun with --jobs 1 on an idle machine to judge it alone.]"
        var noted = self
        noted.verdicts = verdicts.map { verdict in
            guard verdict.failed else { return verdict }
            var changed = verdict
            changed.summary += note
            return changed
        }
        noted.preconditions = preconditions.map { precondition in
            guard !precondition.met else { return precondition }
            var changed = precondition
            changed.detail += note
            return changed
        }
        return noted
    }
}
