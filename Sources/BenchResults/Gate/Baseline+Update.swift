import Foundation

extension Baseline {
    /// The baseline `bench gate --update-baseline` writes after `report`.
    ///
    /// Every scenario the run has takes the run's figures: a metric already in the
    /// baseline keeps its tolerance, direction and slack (people tune those by hand),
    /// a new one gets `MetricBaseline.defaultPolicy(for:)`, and a metric the run no
    /// longer produces is dropped. Scenarios the run did not have are kept unchanged,
    /// so updating from a partial run loses nothing; delete a scenario by hand to
    /// retire it. The baseline records the run's profile name. Scenarios that failed or
    /// erred are updated too: the caller decides whether to accept a failing run
    /// (`bench gate --update-baseline` refuses one: see `GateComparison.updateRefusal`).
    public func updated(from report: RunReport) -> Baseline {
        var next = self
        next.schemaVersion = Self.currentSchemaVersion
        next.profile = report.run.profile
        next.agent = report.run.agent
        next.jobs = report.run.jobs
        // The suite's coverage, from a run of every scenario the baseline has (a run of a
        // few scenarios says nothing of the others' pairs: the coverage is kept).
        if let coverage = report.coverage, Set(scenarios.keys).isSubset(of: report.scenarios.map(\.name)) {
            next.coverage = coverage.coveredIDs
        }
        next.seconds = (seconds ?? [:]).merging(ShardDurations.scenarioSeconds(report)) { _, measured in measured }
        for scenario in report.scenarios {
            let old = scenarios[scenario.name] ?? [:]
            var metrics: [String: MetricBaseline] = [:]
            for (name, value) in scenario.metrics.figures where value.isFinite {
                var metric = old[name] ?? MetricBaseline.defaultPolicy(for: name)
                metric.value = value
                metrics[name] = metric
            }
            next.scenarios[scenario.name] = metrics
        }
        return next
    }
}

extension MetricBaseline {
    /// A metric's default tolerance, direction and slack, by name (value 0), for metrics
    /// new to the baseline. The figures assume a shared 2-core CI machine: timings are
    /// noisy, so their tolerances are wide and their slacks cover scheduling jitter.
    ///
    /// | metric | direction | tolerance | absoluteSlack |
    /// |---|---|---|---|
    /// | `time_to_complete_s` | lower | 0.25 | 1 s |
    /// | `goodput_bps` | higher | 0.25 | 0 |
    /// | `wasted_bytes` | lower | 0.5 | 256 KiB |
    /// | `suspend_latency_s`, `resume_latency_s`, `resume_request_latency_s` | lower | 0.5 | 0.5 s |
    /// | `bytes_refetched_after_crash` | lower | 0.25 | 64 KiB |
    /// | `requests_during_outages` | lower | 0.5 | 2 |
    /// | `agent_peak_rss_bytes` | lower | 0.25 | 16 MiB |
    /// | `bytes_<interface>` and any other name | informational | 1e6 | 0 |
    public static func defaultPolicy(for metric: String) -> MetricBaseline {
        switch metric {
        case "time_to_complete_s": MetricBaseline(value: 0, tolerance: 0.25, direction: .lowerIsBetter, absoluteSlack: 1)
        case "goodput_bps": MetricBaseline(value: 0, tolerance: 0.25, direction: .higherIsBetter)
        case "wasted_bytes":
            MetricBaseline(value: 0, tolerance: 0.5, direction: .lowerIsBetter, absoluteSlack: 256 * 1024)
        case "suspend_latency_s", "resume_latency_s", "resume_request_latency_s":
            MetricBaseline(value: 0, tolerance: 0.5, direction: .lowerIsBetter, absoluteSlack: 0.5)
        case "bytes_refetched_after_crash":
            MetricBaseline(value: 0, tolerance: 0.25, direction: .lowerIsBetter, absoluteSlack: 64 * 1024)
        case "requests_during_outages":
            MetricBaseline(value: 0, tolerance: 0.5, direction: .lowerIsBetter, absoluteSlack: 2)
        case "agent_peak_rss_bytes":
            MetricBaseline(value: 0, tolerance: 0.25, direction: .lowerIsBetter, absoluteSlack: 16 * 1024 * 1024)
        default:
            // `bytes_wifi`, `bytes_cellular`: how bytes split between interfaces follows the
            // profile's timeline, not the engine's quality (the cellular property guards
            // misuse). Unknown names: their better direction is unknown, so they are shown
            // but not gated until someone sets a direction in the file.
            MetricBaseline(value: 0, tolerance: 1e6, direction: .informational)
        }
    }
}
