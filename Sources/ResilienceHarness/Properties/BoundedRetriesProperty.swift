import AppProtocol

extension Property {
    /// `bounded-retries`.
    ///
    /// For each download and each of its outages (no interface it may use is up) that
    /// overlaps its unfinished life (requested before the outage ended, and not
    /// `downloaded`, `failed`, `canceling` or `notDownloaded` when it began), the origin
    /// requests for its video that start inside the outage number at most
    /// `context.maximumRequestsPerOutage`. With the link down few requests reach the
    /// origin (a blackholed or refused connection never does), so this catches storms
    /// over a path that still carries something, e.g. cellular for a download not allowed it.
    public static let boundedRetries = Property(
        id: "bounded-retries",
        description: "During an outage each download makes at most a bounded number of requests: no request storm."
    ) { trace, context in
        var findings = PropertyFindings("bounded-retries")
        var counts: [Int] = []
        for download in trace.downloads {
            for outage in trace.outages(of: download) where isUnfinished(download, during: outage) {
                findings.checkedOne()
                let count = requests(of: download, during: outage, trace).count
                counts.append(count)
                let text = "\(Wording.count(count, "origin request")) for download \(download.token) during the outage "
                    + "from \(Wording.time(outage.start)) (\(outage.startCause)) lasting "
                    + "\(Wording.seconds(outage.length(traceEnd: trace.end)))"
                if count > context.maximumRequestsPerOutage {
                    findings.violation(outage.start, text + ", above the bound of \(context.maximumRequestsPerOutage)")
                } else {
                    findings.support(outage.start, text)
                }
            }
        }
        let worst = counts.max().map(String.init) ?? "n/a"
        return findings.verdict(
            passed: "At most \(worst) requests per download per outage (bound \(context.maximumRequestsPerOutage)) "
                + "over \(Wording.count(counts.count, "outage")).",
            failed: "\(Wording.count(findings.violations.count, "request storm")) (worst \(worst), bound "
                + "\(context.maximumRequestsPerOutage)); first: \(Wording.first(findings)).",
            notApplicable: "No download was unfinished during an outage.")
    }

    static func isUnfinished(_ download: TracedDownload, during outage: TraceInterval) -> Bool {
        guard outage.end.map({ download.requestedAt < $0 }) ?? true else { return false }
        guard let state = download.state(before: outage.start) else { return true }
        return ![.downloaded, .failed, .canceling, .notDownloaded].contains(state)
    }

    /// Origin requests for `download`'s video that start inside `outage`, after it was requested.
    static func requests(of download: TracedDownload, during outage: TraceInterval, _ trace: ScenarioTrace)
        -> [TracedOriginRequest]
    {
        trace.originRequests(forVideo: download.video).filter {
            outage.contains($0.start) && $0.start >= download.requestedAt
        }
    }
}
