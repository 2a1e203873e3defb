import Foundation

extension GateComparison {
    /// What `bench gate` prints: a verdict line, one line per finding (failures first,
    /// then what is only listed), and a tally. `baselinePath` names the file compared with.
    ///
    ///     gate: FAIL against Reports/baseline.json
    ///       property failed   crash / recovery-after-crash: seg3 fetched twice
    ///       regression        crash / time_to_complete_s: 42 → 60.1 (+43.1 %), allowed +10.5
    ///       new metric        crash / agent_peak_rss_bytes = 52428800 (not gated: --update-baseline records it)
    ///     gate: 1 property failure, 1 regression; 1 new metric; 7 metrics within tolerance
    public func lines(baselinePath: String) -> [String] {
        var lines = ["gate: \(passed ? "PASS" : "FAIL") against \(baselinePath)"]
        func add(_ label: String, _ text: String) {
            lines.append("  " + label.padding(toLength: 17, withPad: " ", startingAt: 0) + " " + text)
        }
        if !scenariosNotRun.isEmpty {
            let ran = Set(metrics.map(\.scenario)).union(propertyFailures.map(\.scenario)).sorted()
            add("compared only", "the scenarios run (\(ran.joined(separator: ", "))); not run, not judged: "
                + scenariosNotRun.joined(separator: ", "))
        }
        for failure in propertyFailures {
            add("property failed", "\(failure.scenario) / \(failure.property): \(failure.summary)")
        }
        for error in scenarioErrors { add("scenario error", "\(error.scenario): \(error.message)") }
        for row in regressions {
            let load = underLoad[row.scenario].map {
                " [under load: the scenario ran \($0.description); rerun with --jobs 1 on an idle machine to tell load "
                    + "from a regression]"
            }
            add("regression", "\(row.scenario) / \(row.metric): \(row.change)" + (load ?? "") + (busyMachineNote ?? ""))
        }
        for row in invalidMetrics {
            add("invalid metric", "\(row.scenario) / \(row.metric) = \(row.currentText): not a finite number, "
                + "so the gate cannot judge it (a bug in the measurement or the run)")
        }
        for row in missingMetrics {
            add("missing metric", "\(row.scenario) / \(row.metric): in the baseline (\(row.baselineText)), not in the run")
        }
        for name in missingScenarios {
            add("missing scenario", "\(name): in the baseline, not in the run (run it, or delete it from the baseline)")
        }
        for pair in coverageLost {
            add("coverage lost", "\(pair): the baseline's runs created it, this one did not (docs/situations.md)")
        }
        if let coverageSummary { add("coverage", coverageSummary) }
        for row in newMetrics {
            add("new metric", "\(row.scenario) / \(row.metric) = \(row.currentText) (not gated: --update-baseline records it)")
        }
        for row in metrics where row.status == .improved {
            add("improved", "\(row.scenario) / \(row.metric): \(row.change) (--update-baseline to keep it)")
        }
        lines.append("gate: " + tally)
        return lines
    }

    /// Why `bench gate --update-baseline` must not write a baseline from this run: one
    /// line per failed property, scenario error and metric that is not a finite number,
    /// then what was refused; nil when the run has none (regressions do not refuse:
    /// updating accepts them).
    public func updateRefusal(baselinePath: String) -> [String]? {
        guard !propertyFailures.isEmpty || !scenarioErrors.isEmpty || !invalidMetrics.isEmpty else { return nil }
        var lines: [String] = []
        for failure in propertyFailures {
            lines.append("  property failed   \(failure.scenario) / \(failure.property): \(failure.summary)")
        }
        for error in scenarioErrors { lines.append("  scenario error    \(error.scenario): \(error.message)") }
        for row in invalidMetrics { lines.append("  invalid metric    \(row.scenario) / \(row.metric) = \(row.currentText)") }
        func count(_ n: Int, _ noun: String) -> String? { n == 0 ? nil : "\(n) \(noun)\(n == 1 ? "" : "s")" }
        let what = [
            count(propertyFailures.count, "property failure"), count(scenarioErrors.count, "scenario error"),
            count(invalidMetrics.count, "invalid metric"),
        ].compactMap { $0 }.joined(separator: " and ")
        lines.append("gate: FAIL: --update-baseline refused (\(what)): a baseline is recorded from a passing run only; "
            + "\(baselinePath) is unchanged. Fix the failure, then update.")
        return lines
    }

    /// `1 property failure, 1 regression; 1 new metric; 7 metrics within tolerance`.
    var tally: String {
        func count(_ n: Int, _ noun: String) -> String? { n == 0 ? nil : "\(n) \(noun)\(n == 1 ? "" : "s")" }
        let failing = [
            count(propertyFailures.count, "property failure"), count(scenarioErrors.count, "scenario error"),
            count(regressions.count, "regression"), count(invalidMetrics.count, "invalid metric"),
            count(missingMetrics.count, "missing metric"),
            count(missingScenarios.count, "missing scenario"), count(coverageLost.count, "situation pair lost"),
        ].compactMap { $0 }
        let listed = [
            count(newMetrics.count, "new metric"),
            count(metrics.filter { $0.status == .improved }.count, "improvement"),
        ].compactMap { $0 }
        let fine = metrics.filter { $0.status == .withinTolerance }.count
        return [
            failing.isEmpty ? "no failure" : failing.joined(separator: ", "),
            listed.isEmpty ? nil : listed.joined(separator: ", "),
            "\(fine) metric\(fine == 1 ? "" : "s") within tolerance",
        ].compactMap { $0 }.joined(separator: "; ")
    }
}

extension MetricComparison {
    /// A figure as people read it: integers plain, others to 3 decimals, no trailing zeros.
    public static func format(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// The delta for people: `+43.1 %`, or `+5` when the baseline is 0; nil without both values.
    public var deltaText: String? {
        if let deltaPercent { return (deltaPercent >= 0 ? "+" : "") + String(format: "%.1f %%", deltaPercent) }
        guard let delta else { return nil }
        return (delta >= 0 ? "+" : "") + Self.format(delta)
    }

    /// The baseline value, or `-`.
    public var baselineText: String { baseline.map { Self.format($0.value) } ?? "-" }
    /// The run's value, or `-`.
    public var currentText: String { current.map { Self.format($0) } ?? "-" }

    /// `42 → 60.1 (+43.1 %), allowed +10.5`.
    var change: String {
        var text = "\(baselineText) → \(currentText)"
        if let deltaText { text += " (\(deltaText))" }
        if let baseline {
            let sign = baseline.direction == .higherIsBetter ? "-" : "+"
            text += ", allowed \(sign)\(Self.format(baseline.allowance))"
        }
        return text
    }
}
