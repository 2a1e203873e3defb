import Foundation

/// How `bench gate --calibrate N` turned N runs into a baseline: recorded in the file so
/// that whoever reads it knows how far to trust each allowance.
public struct BaselineCalibration: Sendable, Hashable, Codable {
    /// How many runs the values and allowances come from.
    public var runs: Int
    /// The multiple of the observed spread each allowance is (`CalibrationRule.factor`).
    public var factor: Double
    /// The machine the runs ran on (`RunMetadata.machine` of the first run).
    public var machine: [String: String]
    /// When the last run ended, ISO 8601 in UTC.
    public var madeAt: String

    /// Creates a calibration record.
    public init(runs: Int, factor: Double, machine: [String: String], madeAt: Date) {
        self.runs = runs
        self.factor = factor
        self.machine = machine
        self.madeAt = madeAt.formatted(.iso8601)
    }
}

/// What one metric measured over the calibration runs: every sample, in run order.
public struct MetricCalibration: Sendable, Hashable, Codable {
    /// The metric's value in each run.
    public var samples: [Double]

    /// Creates a record of `samples`.
    public init(samples: [Double]) { self.samples = samples }

    /// The median of the samples (the mean of the middle two for an even count).
    public var median: Double {
        let sorted = samples.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }

    /// The largest distance of a sample from the median.
    public var spread: Double {
        let median = median
        return samples.map { abs($0 - median) }.max() ?? 0
    }
}

/// The rule that turns the samples of one metric into its baseline:
///
/// - `value` is the median of the samples (one slow run does not move it);
/// - `absoluteSlack` is `factor` × the largest deviation from the median, never less
///   than the metric's absolute floor;
/// - `tolerance` is the metric's relative floor.
///
/// So a run fails only when it is worse than the median by more than `factor` times
/// anything seen in calibration, and by more than the floor. The floors cover noise a
/// handful of runs may not show (a scheduling hiccup, one segment more or less in
/// flight when a link dies) and are the allowance of a metric that never varied.
public enum CalibrationRule {
    /// The multiple of the observed spread a run may drift in the bad direction.
    public static let factor = 3.0

    /// The fewest runs a calibration takes: fewer tell nothing about the spread.
    public static let minimumRuns = 3

    /// A metric's floors, by name: relative (of the value) and absolute (in its unit).
    ///
    /// | metric | relative | absolute |
    /// |---|---|---|
    /// | `time_to_complete_s` | 0.25 | 1 s |
    /// | `goodput_bps` | 0.25 | 0 |
    /// | `wasted_bytes` | 1.0 | 256 KiB |
    /// | `suspend_latency_s`, `resume_latency_s`, `resume_request_latency_s` | 0 | 0.25 s |
    /// | `bytes_refetched_after_crash` | 0 | 64 KiB |
    /// | `requests_during_outages` | 0 | 2 |
    /// | `agent_peak_rss_bytes` | 0.1 | 8 MiB |
    public static func floor(for metric: String) -> (relative: Double, absolute: Double) {
        switch metric {
        // A shared 2-core runner with two busy processes beside the gate slowed the
        // downloads by up to 20 % (10 gate runs, .ci/load-test): the time floors cover it.
        case "time_to_complete_s": (0.25, 1)
        case "goodput_bps": (0.25, 0)
        // What a dying link cuts is whole segments in flight: one more than usual at one
        // outage moved profile-timeline's waste by +76 % in 10 gate runs with two busy
        // processes beside them, beyond three times the spread of 5 calibration runs. A
        // run fails only when it also more than doubles the median's waste.
        case "wasted_bytes": (1.0, 256 * 1024)
        case "suspend_latency_s", "resume_latency_s", "resume_request_latency_s": (0, 0.25)
        case "bytes_refetched_after_crash": (0, 64 * 1024)
        case "requests_during_outages": (0, 2)
        case "agent_peak_rss_bytes": (0.1, 8 * 1024 * 1024)
        default: (0, 0)
        }
    }

    /// The baseline of one metric from its samples; `direction` as the metric's policy says.
    public static func baseline(of metric: String, samples: [Double], direction: MetricDirection) -> MetricBaseline {
        let calibration = MetricCalibration(samples: samples)
        let floor = floor(for: metric)
        var baseline = MetricBaseline(
            value: calibration.median, tolerance: floor.relative, direction: direction,
            absoluteSlack: max(floor.absolute, factor * calibration.spread))
        if direction == .informational { baseline.tolerance = MetricBaseline.defaultPolicy(for: metric).tolerance }
        baseline.calibration = calibration
        return baseline
    }
}

/// Why N runs cannot make a calibrated baseline.
public enum CalibrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Fewer runs than `CalibrationRule.minimumRuns`.
    case tooFewRuns(Int)
    /// A run failed a property or erred: a baseline is made from passing runs only.
    case failingRun(index: Int, findings: [String])
    /// Runs do not have the same scenarios (they must all play the same set).
    case differentScenarios(index: Int)
    /// A metric some runs produced and others did not: a gate on it would fail whenever
    /// it is missing, so the scenario must be made to produce it every time first.
    case intermittentMetrics([String])

    public var description: String {
        switch self {
        case let .tooFewRuns(n):
            "calibration needs at least \(CalibrationRule.minimumRuns) runs to see a spread, not \(n): pass --calibrate 5"
        case let .failingRun(index, findings):
            "run \(index + 1) of the calibration failed, so no baseline was written (fix it, then calibrate again):\n  "
                + findings.joined(separator: "\n  ")
        case let .differentScenarios(index):
            "run \(index + 1) of the calibration played other scenarios than run 1; calibrate on one scenario set"
        case let .intermittentMetrics(names):
            "these metrics were measured in some runs and not in others, so a gate on them would fail at random; "
                + "make the scenario create the condition every time, then calibrate again: "
                + names.joined(separator: ", ")
        }
    }
}

extension Baseline {
    /// The baseline `bench gate --calibrate N` writes after `reports` (N passing runs of
    /// one scenario set, one profile, one agent): every metric of every scenario by
    /// `CalibrationRule`, directions from `previous` where it has the metric (else the
    /// default policy), and the calibration record. Scenarios of `previous` the runs did
    /// not play are kept unchanged.
    public static func calibrated(from reports: [RunReport], previous: Baseline = Baseline()) throws(CalibrationError)
        -> Baseline
    {
        guard reports.count >= CalibrationRule.minimumRuns else { throw .tooFewRuns(reports.count) }
        for (index, report) in reports.enumerated() {
            let gate = GateComparison(report: report, baseline: Baseline(), onlyScenariosRun: true)
            let findings = gate.propertyFailures.map { "property failed \($0.scenario) / \($0.property): \($0.summary)" }
                + gate.scenarioErrors.map { "scenario error \($0.scenario): \($0.message)" }
                + gate.invalidMetrics.map { "invalid metric \($0.scenario) / \($0.metric) = \($0.currentText)" }
            guard findings.isEmpty else { throw .failingRun(index: index, findings: findings) }
            guard report.scenarios.map(\.name) == reports[0].scenarios.map(\.name) else {
                throw .differentScenarios(index: index)
            }
        }
        var next = previous
        next.schemaVersion = currentSchemaVersion
        next.profile = reports[0].run.profile
        next.agent = reports[0].run.agent
        next.jobs = reports[0].run.jobs
        var intermittent: [String] = []
        for scenario in reports[0].scenarios where scenario.unsupported == nil {
            let runs = reports.map { report in report.scenarios.first { $0.name == scenario.name }?.metrics.figures ?? [:] }
            let names = Set(runs.flatMap(\.keys)).sorted()
            var metrics: [String: MetricBaseline] = [:]
            for name in names {
                let samples = runs.compactMap { $0[name] }.filter(\.isFinite)
                guard samples.count == runs.count else {
                    intermittent.append("\(scenario.name) / \(name) (\(samples.count) of \(runs.count) runs)")
                    continue
                }
                let direction = previous.scenarios[scenario.name]?[name]?.direction
                    ?? MetricBaseline.defaultPolicy(for: name).direction
                metrics[name] = CalibrationRule.baseline(of: name, samples: samples, direction: direction)
            }
            next.scenarios[scenario.name] = metrics
        }
        guard intermittent.isEmpty else { throw .intermittentMetrics(intermittent) }
        var seconds = previous.seconds ?? [:]
        for name in Set(reports.flatMap { ShardDurations.scenarioSeconds($0).keys }) {
            let samples = reports.compactMap { ShardDurations.scenarioSeconds($0)[name] }.sorted()
            seconds[name] = samples[samples.count / 2]
        }
        next.seconds = seconds
        // The pairs every run created: a pair the suite reaches only by chance would make
        // the gate cry wolf on the run that misses it.
        let coverages = reports.compactMap { $0.coverage.map { Set($0.coveredIDs) } }
        if coverages.count == reports.count, let first = coverages.first {
            next.coverage = coverages.dropFirst().reduce(first) { $0.intersection($1) }.sorted()
        }
        next.calibration = BaselineCalibration(
            runs: reports.count, factor: CalibrationRule.factor, machine: reports[0].run.machine,
            madeAt: reports.map { $0.run.startedAt.addingTimeInterval($0.run.durationSeconds) }.max() ?? Date())
        return next
    }
}

extension Baseline {
    /// What `bench gate --calibrate` prints after writing: one line per gated metric with
    /// its median, the range of its samples and its allowance, then the calibration.
    ///
    ///     housekeeping / wasted_bytes: 712743 (samples 661743…1020243), allowed +922500
    public func calibrationLines() -> [String] {
        var lines: [String] = []
        for (scenario, metrics) in scenarios.sorted(by: { $0.key < $1.key }) {
            for (name, metric) in metrics.sorted(by: { $0.key < $1.key }) where metric.direction != .informational {
                guard let samples = metric.calibration?.samples, let low = samples.min(), let high = samples.max() else {
                    continue
                }
                let sign = metric.direction == .higherIsBetter ? "-" : "+"
                lines.append("  \(scenario) / \(name): \(MetricComparison.format(metric.value)) (samples "
                    + "\(MetricComparison.format(low))…\(MetricComparison.format(high))), allowed "
                    + "\(sign)\(MetricComparison.format(metric.allowance))")
            }
        }
        if let calibration {
            lines.append("calibrated from \(calibration.runs) runs: value = median, allowance = max(floor, "
                + "\(MetricComparison.format(calibration.factor)) × largest deviation from the median)")
        }
        return lines
    }
}
