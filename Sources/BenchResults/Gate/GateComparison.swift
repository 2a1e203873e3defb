import Foundation

/// A run compared with the baseline: what `bench gate` decides on and `report.html`
/// shows. A pure value computed from a `RunReport` and a `Baseline`; made by the
/// `bench` command (or the runner) and handed to the report writers.
///
/// The gate fails on any property failure, scenario error, metric regression beyond
/// its allowance, metric that is not a finite number, metric or scenario of the
/// baseline missing from the run, and on a meaningful situation pair the baseline's runs
/// created that the run did not (coverage fell). New metrics and informational ones never fail it.
public struct GateComparison: Sendable, Hashable, Codable {
    /// Every failed verdict of the run, in report order.
    public var propertyFailures: [PropertyFailure]
    /// Scenarios that could not run to their end, with the harness's message, and
    /// scenarios that did not create a condition they exist for (a precondition not met).
    public var scenarioErrors: [ScenarioError]
    /// One row per metric of the run or of the baseline, for every scenario the run has,
    /// in report order then by metric name.
    public var metrics: [MetricComparison]
    /// Scenarios of the baseline that the run does not have, sorted: they fail the gate
    /// (empty when only the scenarios run are compared).
    public var missingScenarios: [String]
    /// Scenarios of the baseline that the run does not have when only the scenarios
    /// run are compared (`bench gate --scenario X`), sorted: listed, never failing.
    public var scenariosNotRun: [String]
    /// The scenarios whose harness timer ran late enough to stretch a time bound
    /// (`ScenarioLoad.mayStretchBounds`), with their load: a regression of one of them
    /// says so. The gate still fails on it; load explains, it does not excuse.
    public var underLoad: [String: ScenarioLoad] = [:]
    /// Meaningful situation pairs the baseline's runs created and this run did not: the
    /// suite's coverage fell (docs/situations.md). Empty when only the scenarios run are
    /// compared, or when either side has no coverage.
    public var coverageLost: [String] = []
    /// The run's coverage figure and the baseline's count, for the report: "36 of 37
    /// meaningful situation pairs (97 %); the baseline's runs created 35".
    public var coverageSummary: String?
    /// The share of the machine's CPU other processes used while the run played
    /// (`RunMetadata.othersCPUShare`): from `busyMachineShare` up, each regression says so.
    /// The gate still fails on it: load explains, it does not excuse.
    public var othersCPUShare: Double?
    /// The share of the machine's CPU taken by other processes from which a regression is
    /// said to have been measured on a busy machine.
    public static let busyMachineShare = 0.1

    /// Compares `report` with `baseline`. With `onlyScenariosRun` (the run chose its
    /// scenarios, e.g. `--scenario`), the baseline's other scenarios are listed in
    /// `scenariosNotRun` instead of failing as `missingScenarios`.
    public init(report: RunReport, baseline: Baseline, onlyScenariosRun: Bool = false) {
        propertyFailures = report.scenarios.flatMap { scenario in
            scenario.verdicts.filter(\.failed).map {
                PropertyFailure(scenario: scenario.name, property: $0.property, summary: $0.summary)
            }
        }
        scenarioErrors = report.scenarios.flatMap { scenario in
            scenario.error.map { [ScenarioError(scenario: scenario.name, message: $0)] } ?? []
        } + report.scenarios.flatMap { scenario in
            scenario.preconditions.filter { !$0.met }.map {
                ScenarioError(scenario: scenario.name, message: "precondition not met: \($0.name): \($0.detail)")
            }
        }
        metrics = report.scenarios.flatMap { scenario in
            let current = scenario.metrics.figures
            let accepted = baseline.scenarios[scenario.name] ?? [:]
            return Set(current.keys).union(accepted.keys).sorted().map { name in
                MetricComparison(scenario: scenario.name, metric: name, baseline: accepted[name], current: current[name])
            }
        }
        let ran = Set(report.scenarios.map(\.name))
        let notRun = baseline.scenarios.keys.filter { !ran.contains($0) }.sorted()
        missingScenarios = onlyScenariosRun ? [] : notRun
        scenariosNotRun = onlyScenariosRun ? notRun : []
        for scenario in report.scenarios {
            if let load = scenario.load, load.mayStretchBounds { underLoad[scenario.name] = load }
        }
        othersCPUShare = report.run.othersCPUShare
        if let coverage = report.coverage {
            coverageSummary = coverage.summary + (baseline.coverage.map { "; the baseline's runs created \($0.count)" } ?? "")
            if !onlyScenariosRun, let accepted = baseline.coverage {
                let created = Set(coverage.coveredIDs)
                coverageLost = accepted.filter { !created.contains($0) }
            }
        }
    }

    private enum CodingKeys: String, CodingKey {
        case propertyFailures, scenarioErrors, metrics, missingScenarios, scenariosNotRun, underLoad, coverageLost
        case coverageSummary, othersCPUShare
    }

    /// Decodes a comparison; `underLoad` may be left out (a comparison made before it existed).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        propertyFailures = try c.decode([PropertyFailure].self, forKey: .propertyFailures)
        scenarioErrors = try c.decode([ScenarioError].self, forKey: .scenarioErrors)
        metrics = try c.decode([MetricComparison].self, forKey: .metrics)
        missingScenarios = try c.decode([String].self, forKey: .missingScenarios)
        scenariosNotRun = try c.decode([String].self, forKey: .scenariosNotRun)
        underLoad = try c.decodeIfPresent([String: ScenarioLoad].self, forKey: .underLoad) ?? [:]
        coverageLost = try c.decodeIfPresent([String].self, forKey: .coverageLost) ?? []
        coverageSummary = try c.decodeIfPresent(String.self, forKey: .coverageSummary)
        othersCPUShare = try c.decodeIfPresent(Double.self, forKey: .othersCPUShare)
    }

    /// "[the machine was busy: …]" for a regression, when other processes took at least
    /// `busyMachineShare` of the machine's CPU while the run played; nil otherwise.
    public var busyMachineNote: String? {
        guard let share = othersCPUShare, share >= Self.busyMachineShare else { return nil }
        return " [the machine was busy: other processes used \(Int((share * 100).rounded())) % of its CPU while the run "
            + "played, so the app's work waited for a core; rerun on an idle machine to tell a busy machine from a regression]"
    }

    /// Metrics worse than the baseline beyond their allowance.
    public var regressions: [MetricComparison] { metrics.filter { $0.status == .regressed } }
    /// Metrics of the baseline that the run did not produce.
    public var missingMetrics: [MetricComparison] { metrics.filter { $0.status == .missing } }
    /// Metrics of the run that are not finite numbers (NaN, infinite): they fail.
    public var invalidMetrics: [MetricComparison] { metrics.filter { $0.status == .invalid } }
    /// Metrics of the run that the baseline does not have (listed; they do not fail).
    public var newMetrics: [MetricComparison] { metrics.filter { $0.status == .new } }

    /// The rows of one scenario.
    public func metrics(of scenario: String) -> [MetricComparison] { metrics.filter { $0.scenario == scenario } }

    /// Whether the gate passes.
    public var passed: Bool {
        propertyFailures.isEmpty && scenarioErrors.isEmpty && regressions.isEmpty && missingMetrics.isEmpty
            && invalidMetrics.isEmpty && missingScenarios.isEmpty && coverageLost.isEmpty
    }

    /// A failed verdict, as the gate lists it.
    public struct PropertyFailure: Sendable, Hashable, Codable {
        public var scenario: String
        public var property: String
        public var summary: String

        public init(scenario: String, property: String, summary: String) {
            self.scenario = scenario
            self.property = property
            self.summary = summary
        }
    }

    /// A scenario that could not run to its end.
    public struct ScenarioError: Sendable, Hashable, Codable {
        public var scenario: String
        public var message: String

        public init(scenario: String, message: String) {
            self.scenario = scenario
            self.message = message
        }
    }
}

/// One metric of one scenario against its baseline.
public struct MetricComparison: Sendable, Hashable, Codable {
    public var scenario: String
    /// The name in `ScenarioMetrics.figures`, e.g. `time_to_complete_s`.
    public var metric: String
    /// The accepted value and allowance; nil for a metric new to the baseline.
    public var baseline: MetricBaseline?
    /// The run's value; nil when the run did not produce the metric.
    public var current: Double?
    public var status: Status

    /// How a metric compares.
    public enum Status: String, Sendable, Hashable, Codable {
        /// Worse than the baseline, within the allowance.
        case withinTolerance
        /// Better than the baseline by more than the allowance: consider updating it.
        case improved
        /// Worse than the baseline beyond the allowance: fails the gate.
        case regressed
        /// In the baseline, not in the run: fails the gate.
        case missing
        /// In the run, not in the baseline: listed, does not fail.
        case new
        /// Direction `informational`: shown, never gated.
        case informational
        /// Not a finite number (NaN or infinite): fails the gate, whatever the direction,
        /// since no allowance can say whether it is better or worse.
        case invalid
    }

    /// Compares one figure.
    public init(scenario: String, metric: String, baseline: MetricBaseline?, current: Double?) {
        self.scenario = scenario
        self.metric = metric
        self.baseline = baseline
        self.current = current
        status =
            switch (baseline, current) {
            case let (nil, current?) where !current.isFinite: .invalid
            case (nil, _): .new
            case (_?, nil): .missing
            case let (_?, current?) where !current.isFinite: .invalid
            case let (baseline?, current?):
                if baseline.direction == .informational {
                    .informational
                } else if baseline.isRegression(current) {
                    .regressed
                } else if baseline.isImprovement(current), abs(current - baseline.value) > baseline.allowance {
                    .improved
                } else {
                    .withinTolerance
                }
            }
    }

    /// `current - baseline`, in the metric's unit; nil unless both exist.
    public var delta: Double? {
        guard let baseline, let current else { return nil }
        return current - baseline.value
    }

    /// The delta in percent of the baseline; nil when the baseline is 0 (use `delta`).
    public var deltaPercent: Double? {
        guard let delta, let baseline, baseline.value != 0 else { return nil }
        return delta / abs(baseline.value) * 100
    }
}
