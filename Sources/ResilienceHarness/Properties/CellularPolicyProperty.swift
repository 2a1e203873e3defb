import BenchCore
import AppProtocol

extension Property {
    /// `cellular-policy` (DESIGN.md §5, property 2).
    ///
    /// Requests are attributed to downloads by video id (`/videos/{video}/…`), from the
    /// download's request on; scenarios use a distinct video per download, and a video
    /// requested by one download allowed cellular and one not is reported as not
    /// attributable instead of judged.
    /// - A download not allowed cellular: no origin request of its video comes through
    ///   `cellular`; in every span with only cellular up that lasts longer than
    ///   `suspendBound`, it is not `downloading` from `suspendBound` after the span's start;
    ///   and it never goes `→ downloading` while the app knows only cellular is up (after
    ///   its reply to a `setPath` with cellular alone, before the harness sends one with
    ///   WiFi: `ScenarioTrace.told(noneOf:)`), as a resume then would claim: it owes
    ///   `suspended(cellularNotAllowed)` or `suspended(network)`.
    /// - A download allowed cellular: never `suspended(cellularNotAllowed)`; and in every
    ///   span with only cellular up that lasts at least `resumeBound`, begun while it was
    ///   `downloading` or `suspended(network)`, at least one request of its video comes
    ///   through `cellular`.
    /// - No request reaches the origin around the conditioner (no PROXY header; the
    ///   harness's origin refuses it): nothing could say which interface it used, and on
    ///   a phone a request that ignores the interface it was given takes whatever route
    ///   is up, cellular included.
    /// - The conditioner's own count agrees: no byte crosses the cellular link while no
    ///   download allowed cellular is live (requested and not yet downloaded, failed,
    ///   cancelled or deleted).
    public static let cellularPolicy = Property(
        id: "cellular-policy",
        description: "Downloads not allowed cellular move no bytes over it and stay suspended while only cellular "
            + "is up; downloads allowed it keep fetching over cellular when WiFi is down."
    ) { trace, context in
        var rule = CellularPolicyRule(trace: trace, context: context)
        return rule.judge()
    }
}

struct CellularPolicyRule {
    let trace: ScenarioTrace
    let context: PropertyContext
    var findings = PropertyFindings("cellular-policy")
    var cellularBytes = 0
    /// State changes a violation named already.
    var reported: Set<TracedStateChange> = []

    mutating func judge() -> Verdict {
        for download in trace.downloads {
            if download.allowsCellular { judgeAllowed(download) } else { judgeForbidden(download) }
        }
        judgeBypasses()
        judgeLinkCount()
        return findings.verdict(
            passed: "Cellular policy held for \(Wording.count(findings.checked, "check")); "
                + "\(cellularBytes) bytes went over cellular, all for downloads allowed it.",
            failed: "\(Wording.count(findings.violations.count, "violation")) of the cellular policy; first: "
                + "\(Wording.first(findings)).",
            notApplicable: "No download met cellular: it was never up while one ran and nothing went over it.")
    }

    private func cellularRequests(_ download: TracedDownload) -> [TracedOriginRequest] {
        trace.originRequests(forVideo: download.video).filter {
            $0.record.interface == InterfaceKind.cellular.rawValue && $0.start >= download.requestedAt
        }
    }

    // MARK: Not allowed cellular

    private mutating func judgeForbidden(_ download: TracedDownload) {
        let sharing = trace.downloads.contains { $0.video == download.video && $0.allowsCellular }
        if sharing {
            findings.support(download.requestedAt, "download \(download.token): video \(download.video) is also "
                + "downloaded with cellular allowed; its requests cannot be attributed")
        } else {
            judgeForbiddenBytes(download)
        }
        for span in trace.interfaces.cellularOnly where span.length(traceEnd: trace.end) > context.suspendBound.nanoseconds {
            judgeForbiddenState(download, during: span)
        }
        judgeToldOnlyCellular(download)
    }

    /// No `→ downloading` of a download not allowed cellular while the app knows that only
    /// cellular is up; a change the span rule above reported already is not told twice.
    private mutating func judgeToldOnlyCellular(_ download: TracedDownload) {
        let offline = trace.toldOffline
        for window in trace.told(noneOf: download.allowedInterfaces) {
            for change in download.changes where change.to == .downloading && change.t > window.start && window.contains(change.t) {
                // Told no interface at all: auto-suspend-on-disconnect's.
                let toldNone = offline.contains { change.t > $0.start && $0.contains(change.t) }
                guard !toldNone, !reported.contains(change) else { continue }
                findings.checkedOne()
                findings.violation(change.t, "download \(download.token) (cellular not allowed) \(change.from) → downloading "
                    + "at \(Wording.time(change.t)), while the app knew only cellular was up: \(window.startCause) at "
                    + "\(Wording.time(window.start)), and nothing since gave it WiFi"
                    + (window.end.map { " until \(Wording.time($0))" } ?? ""), broke: .respectCellular)
            }
        }
    }

    private mutating func judgeForbiddenBytes(_ download: TracedDownload) {
        let cellularUp = trace.interfaces.up(at: download.requestedAt).contains(.cellular)
            || trace.interfaces.steps.contains { $0.t > download.requestedAt && $0.up.contains(.cellular) }
        let offending = cellularRequests(download)
        guard cellularUp || !offending.isEmpty else { return }
        findings.checkedOne()
        for request in offending {
            findings.violation(request.start, "origin \(request.record.method) \(request.path) over cellular "
                + "(\(request.record.bytesSent) bytes) for download \(download.token), which may not use cellular",
                broke: .respectCellular)
        }
        if offending.isEmpty {
            let total = trace.originRequests(forVideo: download.video).count
            findings.support(download.requestedAt, "download \(download.token) (cellular not allowed): 0 of "
                + "\(Wording.count(total, "origin request")) for video \(download.video) over cellular")
        }
    }

    private mutating func judgeForbiddenState(_ download: TracedDownload, during span: TraceInterval) {
        let grace = span.start.plus(context.suspendBound.nanoseconds)
        let stateAtGrace = download.state(atOrBefore: grace)
        let restarted = download.changes.first { change in
            change.t > grace && span.contains(change.t) && change.to == .downloading
        }
        if stateAtGrace == .downloading {
            findings.checkedOne()
            findings.violation(grace, "download \(download.token) (cellular not allowed) still downloading "
                + "\(Wording.bound(context.suspendBound)) after only cellular was up "
                + "(\(span.startCause) at \(Wording.time(span.start)))", broke: .respectCellular)
        } else if let restarted {
            findings.checkedOne()
            reported.insert(restarted)
            findings.violation(restarted.t, "download \(download.token) (cellular not allowed) \(restarted.from) → "
                + "downloading while only cellular was up (since \(Wording.time(span.start)))", broke: .respectCellular)
        } else if let state = stateAtGrace, state.suspensionCause != nil {
            findings.checkedOne()
            findings.support(grace, "download \(download.token) \(state) while only cellular was up "
                + "(since \(Wording.time(span.start)))")
        }
    }

    // MARK: Allowed cellular

    private mutating func judgeAllowed(_ download: TracedDownload) {
        for change in download.changes where change.to == .suspended(.cellularNotAllowed) {
            findings.checkedOne()
            findings.violation(change.t, "download \(download.token) (cellular allowed) \(change.from) → \(change.to)",
                broke: .respectCellular)
        }
        let requests = cellularRequests(download)
        cellularBytes = requests.reduce(cellularBytes) { $0.plus($1.record.bytesSent) }
        for span in trace.interfaces.cellularOnly where span.length(traceEnd: trace.end) >= context.resumeBound.nanoseconds {
            let state = download.state(before: span.start)
            guard state == .downloading || state == .suspended(.network) else { continue }
            findings.checkedOne()
            let during = requests.filter { span.contains($0.start) }
            if during.isEmpty {
                findings.violation(span.start, "\(span.startCause): download \(download.token) (cellular allowed, "
                    + "\(state.map { "\($0)" } ?? "")) fetched nothing over cellular in the "
                    + "\(Wording.seconds(span.length(traceEnd: trace.end))) with only cellular up", broke: .respectCellular)
            } else {
                let bytes = during.reduce(0) { $0.plus($1.record.bytesSent) }
                findings.support(during[0].start, "download \(download.token) (cellular allowed) fetched "
                    + "\(Wording.count(during.count, "request")) (\(bytes) bytes) over cellular while WiFi was down")
            }
        }
    }
}

extension CellularPolicyRule {
    /// Requests that came straight to the origin, not through the conditioner.
    mutating func judgeBypasses() {
        let direct = trace.originRequests.filter { $0.record.interface == nil }
        guard let first = direct.first else { return }
        findings.checkedOne()
        let paths = Set(direct.map(\.path)).sorted()
        findings.violation(first.start, "\(Wording.count(direct.count, "request")) reached the origin around the link "
            + "conditioner (no PROXY header), the first \(first.record.method) \(first.path) at \(Wording.time(first.start)); "
            + "paths: \(paths.prefix(5).joined(separator: ", "))\(paths.count > 5 ? ", …" : ""): nothing can say "
            + "which interface carried them", broke: .respectCellular)
    }

    /// Bytes the conditioner forwarded over cellular for no download allowed cellular:
    /// each report's connection is matched to the origin request it carried then (by the
    /// client address its PROXY header names), and that request must be for the video of
    /// a download allowed cellular. A report no request can be matched to counts when no
    /// download allowed cellular was requested before it.
    mutating func judgeLinkCount() {
        let cellular = trace.linkBytes.filter { $0.interface == .cellular && $0.bytes > 0 }
        guard !cellular.isEmpty else { return }
        findings.checkedOne()
        let allowed = trace.downloads.filter(\.allowsCellular)
        let allowedVideos = Set(allowed.map(\.video))
        var unexplained: [(bytes: TracedLinkBytes, why: String)] = []
        for bytes in cellular {
            if let request = trace.request(carriedBy: bytes.connection, at: bytes.t) {
                guard let video = request.video, !allowedVideos.contains(video) else { continue }
                unexplained.append((bytes, "\(request.record.method) \(request.path)"))
            } else if !allowed.contains(where: { $0.requestedAt <= bytes.t }) {
                unexplained.append((bytes, "a connection no request can be matched to"))
            }
        }
        let total = cellular.reduce(0) { $0.plus($1.bytes) }
        guard let first = unexplained.first else {
            findings.support(cellular[0].t, "the conditioner forwarded \(total) bytes over cellular, all for downloads "
                + "allowed cellular")
            return
        }
        let bytes = unexplained.reduce(0) { $0.plus($1.bytes.bytes) }
        findings.violation(first.bytes.t, "the conditioner forwarded \(bytes) bytes over cellular for no download allowed "
            + "cellular, the first at \(Wording.time(first.bytes.t)) for \(first.why)", broke: .respectCellular)
    }
}
