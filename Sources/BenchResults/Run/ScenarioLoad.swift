import Foundation

/// How loaded the machine and the bench were while a scenario played, as the harness's
/// own probes saw it: how many other scenarios played at the same time, and three
/// lateness figures that tell the machine from the bench's own work.
///
/// - `timerThreadLateMaxSeconds`: how late the timer thread (`Timekeeper`) fired after
///   a deadline. A thread with nothing else to do woke late: the machine was busy.
/// - `harnessClockLateMaxSeconds`: how late the scenario's script woke on its own
///   executor (a thread of its own) after a deadline: the clock the harness acts and
///   stamps by. Late beyond the timer thread only when the script's executor was busy.
/// - `poolLateMaxSeconds`: how late a task on Swift's cooperative pool woke. The harness
///   keeps no time there; late while the other two are on time means the bench's own
///   work (or a test's) held the pool, not that the machine was slow.
///
/// The bounds the properties judge (suspend within the stall timeout, a license before
/// the background deadline) are never widened for load. When the harness clock ran late
/// enough to stretch one, a failed verdict says so (`ScenarioResult.notingLoad()`), so a
/// reader can tell a loaded machine from a slow app and rerun with `--jobs 1`.
public struct ScenarioLoad: Sendable, Hashable, Codable {
    /// The most other scenarios that played at the same time (0: it played alone).
    public var alongside: Int
    /// The latest the scenario's script woke after a deadline, in seconds.
    public var harnessClockLateMaxSeconds: Double
    /// The latest the timer thread fired after a deadline, in seconds.
    public var timerThreadLateMaxSeconds: Double
    /// The latest a probe on Swift's cooperative pool woke after a deadline, in seconds.
    public var poolLateMaxSeconds: Double

    /// Creates a load record.
    public init(
        alongside: Int, harnessClockLateMaxSeconds: Double, timerThreadLateMaxSeconds: Double = 0,
        poolLateMaxSeconds: Double = 0
    ) {
        self.alongside = alongside
        self.harnessClockLateMaxSeconds = harnessClockLateMaxSeconds
        self.timerThreadLateMaxSeconds = timerThreadLateMaxSeconds
        self.poolLateMaxSeconds = poolLateMaxSeconds
    }

    /// A harness clock this late (250 ms, the smallest time bound a property judges with
    /// a margin of its own) may have stretched a time bound.
    public static let stretchingLagSeconds = 0.25

    /// The harness clock woke late enough to stretch a time bound.
    public var mayStretchBounds: Bool { harnessClockLateMaxSeconds >= Self.stretchingLagSeconds }

    /// Who was late: "the machine" when the timer thread was about as late as the
    /// harness clock, "the scenario's own executor" otherwise; nil when on time.
    public var lateBecause: String? {
        guard mayStretchBounds else { return nil }
        return timerThreadLateMaxSeconds >= harnessClockLateMaxSeconds / 2
            ? "the machine (its timer thread woke as late)" : "the scenario's own executor (its timer thread woke on time)"
    }

    /// "alone, harness clock ≤ 3 ms late (timer thread ≤ 1 ms, pool ≤ 40 ms)".
    public var description: String {
        let who = alongside == 0 ? "alone" : "with \(alongside) other scenario\(alongside == 1 ? "" : "s")"
        return "\(who), harness clock ≤ \(Self.milliseconds(harnessClockLateMaxSeconds)) late "
            + "(timer thread ≤ \(Self.milliseconds(timerThreadLateMaxSeconds)), "
            + "cooperative pool ≤ \(Self.milliseconds(poolLateMaxSeconds)))"
    }

    private static func milliseconds(_ seconds: Double) -> String {
        "\(Int((seconds * 1000).rounded())) ms"
    }

    private enum CodingKeys: String, CodingKey {
        case alongside, harnessClockLateMaxSeconds, timerThreadLateMaxSeconds, poolLateMaxSeconds
        case timerLagMaxSeconds  // reports before the executors: the progress timer, on the pool
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        alongside = try c.decode(Int.self, forKey: .alongside)
        harnessClockLateMaxSeconds = try c.decodeIfPresent(Double.self, forKey: .harnessClockLateMaxSeconds)
            ?? c.decodeIfPresent(Double.self, forKey: .timerLagMaxSeconds) ?? 0
        timerThreadLateMaxSeconds = try c.decodeIfPresent(Double.self, forKey: .timerThreadLateMaxSeconds) ?? 0
        poolLateMaxSeconds = try c.decodeIfPresent(Double.self, forKey: .poolLateMaxSeconds) ?? 0
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(alongside, forKey: .alongside)
        try c.encode(harnessClockLateMaxSeconds, forKey: .harnessClockLateMaxSeconds)
        try c.encode(timerThreadLateMaxSeconds, forKey: .timerThreadLateMaxSeconds)
        try c.encode(poolLateMaxSeconds, forKey: .poolLateMaxSeconds)
    }
}

extension ScenarioResult {
    /// This result with each failed verdict and unmet precondition saying the machine was
    /// loaded, when its harness clock woke late enough to stretch a time bound; unchanged
    /// otherwise. The outcome is never changed: a load note explains a failure, it does
    /// not excuse it.
    public func notingLoad() -> ScenarioResult {
        guard let load, load.mayStretchBounds, let because = load.lateBecause else { return self }
        let note = " [Under load: the scenario ran \(load.description); late because of \(because); a time bound "
            + "may have been stretched by the machine rather than the app. Rerun with --jobs 1 on an idle machine to "
            + "judge it alone.]"
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
