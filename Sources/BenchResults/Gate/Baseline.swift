import Foundation

/// What `bench gate` compares a run with: `Reports/baseline.json`, the accepted value
/// of every metric of every scenario and how far a run may drift from it (schema in
/// `docs/report-schema.md`).
///
/// A value type read and written by the `bench` command on whatever thread it runs;
/// `GateComparison` reads it, `updated(from:)` makes the next one.
public struct Baseline: Sendable, Hashable, Codable {
    /// The version of this format; a file with another version is refused.
    public static let currentSchemaVersion = 1

    public var schemaVersion: Int
    /// The name of the profile of the run it was last updated from; nil in a file
    /// written before it was recorded. `bench run` compares with the default baseline
    /// only when its profile has this name.
    public var profile: String?
    /// Per scenario name, per metric name (the names of `ScenarioMetrics.figures`).
    public var scenarios: [String: [String: MetricBaseline]]
    /// The app under test of the run it was last updated from (`RunMetadata.agent`); nil
    /// in a file written before it was recorded, which means Deadzone's engine.
    public var agent: String?
    /// How the values and allowances were calibrated (`bench gate --calibrate N`); nil
    /// for a baseline set by hand or only updated.
    public var calibration: BaselineCalibration?
    /// The most scenarios the runs it was made from played at the same time (`--jobs`);
    /// nil in a file written before it was recorded (one after another).
    public var jobs: Int?
    /// The meaningful situation pairs (`SituationPair.id`, docs/situations.md) the suite
    /// created in the runs it was made from, every one of them (a pair one calibration
    /// run missed is left out: only what the suite creates every time is gated); nil in
    /// a file written before coverage was measured.
    public var coverage: [String]?
    /// Each scenario's wall time, in seconds, in the run(s) it was made from (the median
    /// of a calibration's): what `--shard` balances shards by. nil in a file written
    /// before it was recorded (the shards then split by count).
    public var seconds: [String: Double]?

    /// Creates a baseline in the current schema version.
    public init(profile: String? = nil, scenarios: [String: [String: MetricBaseline]] = [:], agent: String? = nil) {
        schemaVersion = Self.currentSchemaVersion
        self.profile = profile
        self.agent = agent
        self.scenarios = scenarios
    }
}

/// The accepted value of one metric and the drift allowed before it is a regression.
///
/// A run's value is a regression when it is worse than `value` (per `direction`) by
/// more than **both** `tolerance × |value|` and `absoluteSlack`: the relative
/// tolerance absorbs noise on large values, the absolute slack absorbs noise on small
/// ones, and it is the only allowance when `value` is 0 (e.g. `requests_during_outages`).
public struct MetricBaseline: Sendable, Hashable, Codable {
    /// The accepted value, in the metric's unit (the suffix of its name).
    public var value: Double
    /// Allowed relative drift in the bad direction: 0.25 allows 25 % worse.
    public var tolerance: Double
    /// Which way is better; `informational` metrics are shown but never regress.
    public var direction: MetricDirection
    /// Allowed absolute drift in the bad direction, in the metric's unit; 0 when absent.
    public var absoluteSlack: Double
    /// The samples the allowance was calibrated from; nil when set by hand.
    public var calibration: MetricCalibration?

    /// Creates a metric baseline.
    public init(value: Double, tolerance: Double, direction: MetricDirection, absoluteSlack: Double = 0) {
        self.value = value
        self.tolerance = tolerance
        self.direction = direction
        self.absoluteSlack = absoluteSlack
    }

    private enum CodingKeys: String, CodingKey { case value, tolerance, direction, absoluteSlack, calibration }

    /// Decodes a metric; `absoluteSlack` may be left out (it is then 0).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        value = try c.decode(Double.self, forKey: .value)
        tolerance = try c.decode(Double.self, forKey: .tolerance)
        direction = try c.decode(MetricDirection.self, forKey: .direction)
        absoluteSlack = try c.decodeIfPresent(Double.self, forKey: .absoluteSlack) ?? 0
        calibration = try c.decodeIfPresent(MetricCalibration.self, forKey: .calibration)
        guard tolerance >= 0, absoluteSlack >= 0, value.isFinite, tolerance.isFinite, absoluteSlack.isFinite else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "value, tolerance and absoluteSlack must be finite; tolerance and slack not negative"))
        }
    }

    /// How much worse than `value` a run may be: the larger of the two allowances.
    public var allowance: Double { max(abs(value) * tolerance, absoluteSlack) }

    /// Whether `current` is worse than this baseline beyond its allowance.
    public func isRegression(_ current: Double) -> Bool {
        switch direction {
        case .lowerIsBetter: current - value > allowance
        case .higherIsBetter: value - current > allowance
        case .informational: false
        }
    }

    /// Whether `current` is better than `value` (by any amount).
    public func isImprovement(_ current: Double) -> Bool {
        switch direction {
        case .lowerIsBetter: current < value
        case .higherIsBetter: current > value
        case .informational: false
        }
    }
}

/// Which way a metric is better.
public enum MetricDirection: String, Sendable, Hashable, Codable, CaseIterable {
    /// Times, latencies, wasted or re-fetched bytes, memory.
    case lowerIsBetter
    /// Goodput.
    case higherIsBetter
    /// Neither (bytes per interface depend on the profile's timeline): shown, never gated.
    case informational
}
