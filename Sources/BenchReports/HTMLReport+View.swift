import AppProtocol
import BenchCore
import BenchResults
import Foundation

/// What `report.mustache` renders: the report as strings, every one XML-legal (the
/// template escapes `<>&"'` itself). Built by `HTMLReport`; swift-mustache reads the
/// fields by reflection, so their names are the template's keys.
struct HTMLReportView {
    var profile: String
    var overall: String
    var overallClass: String
    var run: [Fact]
    var versions: [Fact]
    var machine: [Fact]
    var verdicts: [VerdictRow]
    var hasBaseline: Bool
    var gate: String
    var gateClass: String
    var missingScenarios: [Fact]
    var scenariosNotRun: [Fact]
    /// Which baseline the page compares with, or why it has none (`bench run`'s choice).
    var hasBaselineNote: Bool
    var baselineNote: String
    var scenarios: [ScenarioView]
    var legend: [Fact]
    /// The situation coverage grid; nil for a report written before coverage was measured.
    var coverage: CoverageGrid?
    /// What failed and the scenario × property grid: the top of the page.
    var grid: VerdictGrid
    var hasFailures: Bool
    /// The command line that plays the run again (profile, seed, scenarios, app).
    var rerun: String
    /// Whether the report is one shard's (`--shard i/n`): the rerun plays its whole.
    var isShard: Bool

    /// A label and a value (or a CSS class, for legend entries).
    struct Fact {
        var key: String
        var value: String
    }

    /// The entries of `dictionary` sorted by key, made XML-legal.
    static func facts(_ dictionary: [String: String]) -> [Fact] {
        dictionary.sorted { $0.key < $1.key }.map { Fact(key: XMLText.legal($0.key), value: XMLText.legal($0.value)) }
    }

    struct VerdictRow {
        /// The row's id, the target of the grid's cells.
        var id: String
        var scenario: String
        var property: String
        var outcome: String
        var outcomeClass: String
        var summary: String
        var hasEvidence: Bool
        var evidenceCount: String
        var evidence: [Fact]
    }

    struct ScenarioView {
        var index: String
        var name: String
        var summary: String
        var status: String
        var statusClass: String
        var hasError: Bool
        var errorText: String
        var window: String
        var metrics: [MetricRow]
        var svg: TimelineSVG
        var preconditions: [PreconditionRow]
        var hasPreconditions: Bool
        /// The properties whose verdict applied, comma-separated.
        var exercised: String
        /// Each launch's stderr file, beside the report.
        var logs: [LaunchLogLink]
        var hasLogs: Bool
        /// Each storage sync before a read (`--storage-sync`): when (s), and what it preceded.
        var syncs: [Fact]
        var hasSyncs: Bool
    }

    /// A link to what one launch of the app wrote on its stderr.
    struct LaunchLogLink {
        var file: String
        var label: String
    }

    /// A scenario's precondition and whether it was met.
    struct PreconditionRow {
        var name: String
        var outcome: String
        var outcomeClass: String
        var detail: String
    }

    struct MetricRow {
        var name: String
        var baseline: String
        var allowed: String
        var current: String
        var delta: String
        var status: String
        var statusClass: String
    }
}

extension HTMLReportView {
    init(report: RunReport, comparison: GateComparison?, baselineNote: String?, timelines: [TimelineSVG]) {
        let safe = XMLText.legal
        profile = safe(report.run.profile)
        overall = report.passed ? "PASS" : "FAIL"
        overallClass = report.passed ? "pass" : "fail"
        run = [
            Fact(key: "profile", value: safe(report.run.profile)),
            Fact(key: "profile path", value: safe(report.run.profilePath)),
            Fact(key: "seed", value: String(report.run.seed)),
            Fact(key: "started", value: report.run.startedAt.formatted(.iso8601)),
            Fact(key: "duration", value: MetricComparison.format(report.run.durationSeconds) + " s"),
            Fact(key: "scenarios", value: String(report.scenarios.count)),
        ]
        if let agent = report.run.agent { run.append(Fact(key: "agent", value: safe(agent))) }
        if let app = report.run.app { run.append(Fact(key: "app", value: safe(app))) }
        if let jobs = report.run.jobs { run.append(Fact(key: "scenarios at once (--jobs)", value: String(jobs))) }
        if report.run.https == true {
            run.append(Fact(key: "served over", value: "HTTPS (--https), with a CA made for the run: ca.pem in the run's output directory"))
        }
        if let share = report.run.othersCPUShare {
            run.append(Fact(key: "CPU used by other processes", value: "\(Int((share * 100).rounded())) % of the machine's"))
        }
        run += ShardProvenance.facts(shard: report.run.shard, mergedFrom: report.run.mergedFrom).map {
            Fact(key: safe($0.key), value: safe($0.value))
        }
        let unsupported = report.unsupportedScenarios
        if !unsupported.isEmpty {
            run.append(Fact(
                key: "unsupported",
                value: safe(unsupported.map { "\($0.name) (\(($0.unsupported ?? []).joined(separator: ", ")))" }
                    .joined(separator: "; "))))
        }
        versions = HTMLReportView.facts(report.run.versions)
        machine = HTMLReportView.facts(report.run.machine)
        verdicts = report.scenarios.enumerated().flatMap { index, scenario in
            let anchors = ScenarioAnchors(index: index)
            if let text = scenario.unsupportedText {
                return [VerdictRow(
                    id: anchors.scenario + "-unsupported", scenario: safe(scenario.name), property: "(every property)",
                    outcome: safe(text), outcomeClass: "na",
                    summary: "Not played: the app's hello does not declare what this scenario needs; never counted as passed.",
                    hasEvidence: false, evidenceCount: "0", evidence: [])]
            }
            return scenario.verdicts.map { verdict in
                VerdictRow(
                    id: anchors.verdict(verdict.property), scenario: safe(scenario.name), property: safe(verdict.property),
                    outcome: verdict.outcome.rawValue.replacingOccurrences(of: "_", with: " "),
                    outcomeClass: verdict.outcome == .passed ? "pass" : verdict.outcome == .failed ? "fail" : "na",
                    summary: safe(verdict.summary), hasEvidence: !verdict.evidence.isEmpty,
                    evidenceCount: String(verdict.evidence.count),
                    evidence: verdict.evidence.map {
                        Fact(key: MetricComparison.format(Double($0.t) / 1e9),
                             value: safe($0.text + ($0.obligation.map { " [broke: \($0)]" } ?? "")))
                    })
            }
        }
        hasBaseline = comparison != nil
        if let comparison {
            let tally = comparison.lines(baselinePath: "the baseline").last ?? ""
            gate = (comparison.passed ? "Gate passes: " : "Gate fails: ") + safe(String(tally.dropFirst("gate: ".count)))
            if !comparison.regressions.isEmpty, let note = comparison.busyMachineNote { gate += safe(note) }
            gateClass = comparison.passed ? "pass" : "fail"
            missingScenarios = comparison.missingScenarios.map { Fact(key: safe($0), value: "in the baseline, not in the run") }
            scenariosNotRun = comparison.scenariosNotRun.map {
                Fact(key: safe($0), value: "in the baseline, not run (only the scenarios run are compared)")
            }
        } else {
            gate = "No baseline: the metrics are shown without comparison."
            gateClass = "na"
            missingScenarios = []
            scenariosNotRun = []
        }
        coverage = CoverageGrid(report.coverage, lost: comparison?.coverageLost ?? [])
        hasBaselineNote = baselineNote != nil
        self.baselineNote = safe(baselineNote ?? "")
        scenarios = zip(report.scenarios.indices, report.scenarios).map { index, scenario in
            ScenarioView(
                index: String(index + 1), name: safe(scenario.name), summary: safe(scenario.summary),
                status: scenario.unsupportedText.map(safe) ?? (scenario.passed ? "passed" : scenario.error != nil ? "error"
                    : safe(Self.failedStatus(scenario))),
                statusClass: scenario.unsupported != nil ? "na" : scenario.passed ? "pass" : "fail", hasError: scenario.error != nil,
                errorText: safe(scenario.error ?? ""),
                window: MetricComparison.format(Double(scenario.startNanoseconds) / 1e9) + "–"
                    + MetricComparison.format(Double(scenario.endNanoseconds) / 1e9) + " s"
                    + (scenario.load.map { "; played " + safe($0.description) } ?? ""),
                metrics: Self.metricRows(scenario, comparison: comparison),
                svg: index < timelines.count ? timelines[index] : TimelineSVG(Timeline(entries: [], start: 0, end: 1)),
                preconditions: scenario.preconditions.map {
                    PreconditionRow(
                        name: safe($0.name), outcome: $0.met ? "met" : "NOT MET", outcomeClass: $0.met ? "pass" : "fail",
                        detail: safe($0.detail))
                },
                hasPreconditions: !scenario.preconditions.isEmpty,
                exercised: safe(scenario.exercisedProperties.joined(separator: ", ")),
                logs: (scenario.stderr ?? []).map { log in
                    LaunchLogLink(
                        file: safe(log.file(scenario: scenario.name)),
                        label: "launch \(log.launch) (\(log.bytes) bytes\(log.truncated ? ", its end kept" : ""))")
                },
                hasLogs: !(scenario.stderr ?? []).isEmpty,
                syncs: (scenario.storageSyncs ?? []).map { sync in
                    Fact(
                        key: MetricComparison.format(Double(sync.t) / 1e9),
                        value: safe("before the \(sync.read) read, \(MetricComparison.format(sync.seconds)) s"
                            + (sync.error.map { "; FAILED: \($0)" } ?? "")))
                },
                hasSyncs: !(scenario.storageSyncs ?? []).isEmpty)
        }
        legend = Self.legend
        grid = VerdictGrid(report, comparison: comparison)
        hasFailures = !grid.failures.isEmpty
        rerun = safe(Self.rerun(report))
        isShard = report.run.shard != nil
    }

    /// `swift run bench --profile P --seed S --scenario A … --agent 'C'`: the run again, as
    /// far as its report can say (a scenario given as a file is named, not its file). For a
    /// shard, the whole it is a part of: there each of its scenarios has the seed it had.
    static func rerun(_ report: RunReport) -> String {
        let quoted = BenchInvocation.quoted
        var words = ["swift run bench --profile", quoted(report.run.profilePath), "--seed", String(report.run.seed)]
        // A shard's scenarios play with the seeds they have in the whole, so its whole is
        // what plays them again with the same seeds.
        for name in report.run.shard?.allUnits ?? report.scenarios.map(\.name) { words += ["--scenario", quoted(name)] }
        let misbehave = "deadzone --misbehave "
        if let agent = report.run.agent, agent != "deadzone" {
            words += agent.hasPrefix(misbehave) ? ["--misbehave", quoted(String(agent.dropFirst(misbehave.count)))]
                : ["--agent", quoted(agent)]
        }
        if let jobs = report.run.jobs { words += ["--jobs", String(jobs)] }
        if report.run.https == true { words.append("--https") }
        return words.joined(separator: " ")
    }

    /// A failed scenario's status: "failed: <every failed property>", with "precondition
    /// not met" beside them when one was, never instead.
    static func failedStatus(_ scenario: ScenarioResult) -> String {
        let failed = scenario.failedProperties
        let unmet = scenario.preconditions.contains { !$0.met }
        switch (failed.isEmpty, unmet) {
        case (true, true): return "precondition not met"
        case (false, true): return "failed: \(failed.joined(separator: ", ")); precondition not met"
        case (false, false): return "failed: \(failed.joined(separator: ", "))"
        case (true, false): return "failed"
        }
    }

    static func metricRows(_ scenario: ScenarioResult, comparison: GateComparison?) -> [MetricRow] {
        guard let comparison else {
            return scenario.metrics.figures.sorted { $0.key < $1.key }.map {
                MetricRow(
                    name: XMLText.legal($0.key), baseline: "-", allowed: "-", current: MetricComparison.format($0.value),
                    delta: "-", status: "no baseline", statusClass: "na")
            }
        }
        return comparison.metrics(of: scenario.name).map { row in
            let allowed: String =
                switch row.baseline?.direction {
                case nil: "-"
                case .informational?: "not gated"
                case .lowerIsBetter?: "+" + MetricComparison.format(row.baseline?.allowance ?? 0)
                case .higherIsBetter?: "−" + MetricComparison.format(row.baseline?.allowance ?? 0)
                }
            let (status, statusClass): (String, String) =
                switch row.status {
                case .withinTolerance: ("✓ within tolerance", "pass")
                case .improved: ("★ improved", "better")
                case .regressed:
                    (comparison.underLoad[row.scenario] != nil ? "✗ regression (under load)"
                        : comparison.busyMachineNote != nil ? "✗ regression (busy machine)" : "✗ regression", "fail")
                case .missing: ("✗ missing from the run", "fail")
                case .invalid: ("✗ not a finite number", "fail")
                case .new: ("+ new (not gated)", "na")
                case .informational: ("· informational", "na")
                }
            return MetricRow(
                name: XMLText.legal(row.metric), baseline: row.baselineText, allowed: allowed, current: row.currentText,
                delta: row.deltaText ?? "-", status: status, statusClass: statusClass)
        }
    }

    /// Every colour of the timelines, with the CSS class that draws it.
    static let legend: [Fact] =
        [
            Fact(key: "profile phase", value: "nw-profile"),
            Fact(key: "profile phase held off by the scenario", value: "nw-profile-held"),
            Fact(key: "scenario network step", value: "nw-scenario"),
            Fact(key: "origin fault window (profile)", value: "nw-origin-fault"),
        ]
        + ["up", "down(reset)", "down(blackhole)", "down(refuse)"].map { Fact(key: "interface \($0)", value: "if-" + TimelineSVG.cssName($0)) }
        + [Fact(key: "throughput", value: "tp")]
        + ["foreground", "background"].map { Fact(key: "app \($0)", value: "lc-" + $0) }
        + (AppState.allCases.filter { $0 != .notDownloaded }.map(\.description) + [Timeline.agentDown]).map {
            Fact(key: $0, value: "st-" + TimelineSVG.cssName($0))
        }
        + Timeline.Marker.Kind.allCases.map { Fact(key: "agent \($0.rawValue)", value: "mk-\($0.rawValue)") }
        + [Fact(key: "failed property, where its evidence begins", value: "mk-failed")]
}
