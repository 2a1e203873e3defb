import AppProtocol

extension Property {
    /// `monotonic-progress`.
    ///
    /// For each download and selection, every `.agent(.progress)` fraction is finite
    /// and in 0…1, and never lower than the previous one of the same agent process
    /// (processes are separated by launches, harness or agent, and kills); a download
    /// whose last state is `downloaded` last reported 1 (to within 1e-9) for every
    /// selection it reported.
    public static let monotonicProgress = Property(
        id: "monotonic-progress",
        description: "Progress of each selection stays in 0…1, never decreases within an agent process, and "
            + "reaches 1 for a downloaded video."
    ) { trace, _ in
        var rule = ProgressRule(trace: trace)
        return rule.judge()
    }
}

private struct ProgressRule {
    let trace: ScenarioTrace
    var findings = PropertyFindings("monotonic-progress")

    mutating func judge() -> Verdict {
        let series = Dictionary(grouping: trace.progress) { "\($0.download)|\($0.selection)" }
        for key in series.keys.sorted() {
            guard let reports = series[key], let first = reports.first else { continue }
            findings.checkedOne()
            judgeSeries(reports)
            judgeCompletion(download: first.download, selection: first.selection, reports: reports)
        }
        return findings.verdict(
            passed: "\(Wording.count(trace.progress.count, "progress report")) over "
                + "\(Wording.count(series.count, "selection")) stayed in 0…1, never decreased, and reached 1 when done.",
            failed: "\(Wording.count(findings.violations.count, "progress violation")); first: \(Wording.first(findings)).",
            notApplicable: "No progress was reported.")
    }

    /// Which agent process `t` falls in: the number of process boundaries at or before it.
    private func process(at t: UInt64) -> Int {
        let boundaries = trace.agentLaunches.map(\.t) + trace.launches.map(\.t) + trace.restarts.map(\.kill.t)
        return boundaries.filter { $0 <= t }.count
    }

    private mutating func judgeSeries(_ reports: [TracedProgress]) {
        var previous: TracedProgress?
        for report in reports {
            let name = "\(report.download) \(report.selection)"
            if !report.fraction.isFinite || report.fraction < 0 || report.fraction > 1 {
                findings.violation(report.t, "progress of \(name) was \(report.fraction), outside 0…1", broke: .reportTruly)
            }
            if let previous, process(at: previous.t) == process(at: report.t), report.fraction < previous.fraction {
                findings.violation(report.t, "progress of \(name) fell from \(previous.fraction) (at "
                    + "\(Wording.time(previous.t))) to \(report.fraction) in the same agent process", broke: .reportTruly)
            }
            previous = report
        }
    }

    private mutating func judgeCompletion(download: String, selection: String, reports: [TracedProgress]) {
        guard trace.stateChanges[download]?.last?.to == .downloaded, let last = reports.last else { return }
        if last.fraction >= 1 - 1e-9 {
            findings.support(last.t, "progress of \(download) \(selection) reached 1")
        } else {
            findings.violation(last.t, "download \(download) ended downloaded but \(selection) last reported progress "
                + "\(last.fraction), not 1", broke: .reportTruly)
        }
    }
}
