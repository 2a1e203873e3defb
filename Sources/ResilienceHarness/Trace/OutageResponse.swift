import BenchCore
import AppProtocol

/// How one download met one of its outages (a span with no interface it may use):
/// what it was doing when the outage began, when it suspended, when it resumed.
/// Shared by `auto-suspend-on-disconnect` and the latency metrics.
public struct OutageResponse: Sendable, Hashable {
    /// The download, and the span with no interface it may use.
    public var download: TracedDownload
    /// See `download`.
    public var outage: TraceInterval
    /// The state reported before the outage began (nil when none was).
    public var stateAtStart: AppState?
    /// The first change into a network suspension (`suspended(network)`, or
    /// `suspended(cellularNotAllowed)`: the engine's reason when only cellular is up
    /// and the download may not use it) at or after the start, before the outage ended.
    public var suspension: TracedStateChange?
    /// The change that has the download `downloading` (or `downloaded`) again: the one
    /// in force at the outage's end if it is one of those (it never stopped), else the
    /// first one after the end, before the download's next outage.
    public var resumption: TracedStateChange?
    /// When the download's next outage begins, if it has one.
    public var nextOutageStart: UInt64?

    /// The download was transferring when the outage began.
    public var wasDownloading: Bool { stateAtStart == .downloading }

    /// The download was transferring, or already suspended for the network, when the
    /// outage began: the outage concerns it.
    public var isInvolved: Bool {
        wasDownloading || stateAtStart.map(Self.isNetworkSuspension) == true
    }

    /// From the outage's start to the suspension, for a download that was transferring.
    public var suspendLatency: UInt64? {
        guard wasDownloading, let suspension else { return nil }
        return suspension.t - outage.start
    }

    /// From the outage's end to the download transferring (or done) again; 0 when it
    /// never stopped.
    public var resumeLatency: UInt64? {
        guard isInvolved, let end = outage.end, let resumption else { return nil }
        return resumption.t > end ? resumption.t - end : 0
    }

    /// `suspended(network)` or `suspended(cellularNotAllowed)`.
    public static func isNetworkSuspension(_ state: AppState) -> Bool {
        state == .suspended(.network) || state == .suspended(.cellularNotAllowed)
    }
}

extension ScenarioTrace {
    /// Every download's response to each of its outages, in download then time order.
    public var outageResponses: [OutageResponse] {
        downloads.flatMap { download in
            let outages = outages(of: download)
            return outages.enumerated().map { index, outage in
                let next = index + 1 < outages.count ? outages[index + 1].start : nil
                return Self.response(of: download, to: outage, nextOutageStart: next)
            }
        }
    }

    private static func response(
        of download: TracedDownload, to outage: TraceInterval, nextOutageStart: UInt64?
    ) -> OutageResponse {
        let suspension = download.firstChange(from: outage.start) { change in
            OutageResponse.isNetworkSuspension(change.to)
        }.flatMap { outage.contains($0.t) ? $0 : nil }
        var resumption: TracedStateChange?
        if let end = outage.end, let change = resumingChange(of: download, after: end) {
            let beforeNext = nextOutageStart.map { change.t < $0 } ?? true
            resumption = beforeNext ? change : nil
        }
        return OutageResponse(
            download: download, outage: outage, stateAtStart: download.state(before: outage.start),
            suspension: suspension, resumption: resumption, nextOutageStart: nextOutageStart)
    }

    /// The change that has `download` transferring (or done) at `end` or, failing that,
    /// the first one after `end` that does.
    private static func resumingChange(of download: TracedDownload, after end: UInt64) -> TracedStateChange? {
        let running: (TracedStateChange) -> Bool = { $0.to == .downloading || $0.to == .downloaded }
        if let current = download.changes.last(where: { $0.t <= end }), running(current) { return current }
        return download.firstChange(from: end, where: running)
    }
}
