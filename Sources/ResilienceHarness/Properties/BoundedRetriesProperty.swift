import AppProtocol
import BenchCore
import Foundation

extension Property {
    /// `bounded-retries`.
    ///
    /// Judged per outage of the app's allowed interfaces (`RetryOutage`): a span during
    /// which none of the interfaces some download may use is up, while at least one such
    /// download is unfinished (requested before the outage ended, and not `downloaded`,
    /// `failed`, `canceling` or `notDownloaded` when it began). Two checks:
    ///
    /// - **Connection attempts**, from the conditioner: every connection the app opened
    ///   on those interfaces during the outage (accepted, which a blackholed interface
    ///   does and then holds, or refused: accepted and reset at once by a down interface,
    ///   `connectionRefused`), from the outage's start (or the first in-flight download's
    ///   request, if later) to its end, number at most `transferring ×
    ///   (context.retryBurst + context.retryRate × seconds)`, where `transferring` is the
    ///   number of those downloads `downloading` or still `requested` (fetching its
    ///   playlists or license) when the outage began (at least 1): each transfer cut
    ///   retries its own requests. The conditioner cannot tell downloads
    ///   apart, so the attempts are the app's, not one download's: an outage shared by
    ///   several downloads is judged once, naming them.
    /// - **Spacing**, from the conditioner (`judgeSpacing`): no more than
    ///   `context.retryImmediateRun` retries in a row per transfer cut (or per
    ///   connection of the app open on the outage's interfaces when it began, if more), each within
    ///   `context.retryImmediateWindow` of the failure before it: retries back off.
    /// - **Origin requests**, from the origin's log: for each of those downloads, the
    ///   requests for its video that start inside the outage number at most
    ///   `context.maximumRequestsPerOutage` (few reach the origin with the link down;
    ///   this catches storms over a path that still carries something, e.g. cellular for
    ///   a download not allowed it).
    public static let boundedRetries = Property(
        id: "bounded-retries",
        description: "During an outage the app's connection attempts stay within a burst plus a steady rate, and each "
            + "download makes a bounded number of requests: no retry storm."
    ) { trace, context in
        var findings = PropertyFindings("bounded-retries")
        var worstAttempts: (count: Int, rate: Double)?
        var worstRequests: Int?
        for outage in retryOutages(trace) {
            findings.checkedOne()
            let judged = outage.judgeAttempts(trace, context)
            if judged.violates { findings.violation(outage.interval.start, judged.text, broke: .backOff) } else {
                findings.support(outage.interval.start, judged.text)
            }
            if judged.count > worstAttempts?.count ?? -1 { worstAttempts = (judged.count, judged.rate) }
            if let storm = outage.judgeSpacing(trace, context) { findings.violation(storm.t, storm.text, broke: .backOff) }
            for download in outage.downloads {
                let count = requests(of: download, during: outage.interval, trace).count
                worstRequests = max(worstRequests ?? 0, count)
                let text = "\(Wording.count(count, "origin request")) for download \(download.token) during the outage "
                    + "from \(Wording.time(outage.interval.start)) (\(outage.interval.startCause)) lasting "
                    + "\(Wording.seconds(outage.interval.length(traceEnd: trace.end)))"
                if count > context.maximumRequestsPerOutage {
                    findings.violation(outage.interval.start, text + ", above the bound of \(context.maximumRequestsPerOutage)",
                        broke: .backOff)
                } else {
                    findings.support(outage.interval.start, text)
                }
            }
        }
        // Only the figures that exist.
        let worst = [
            worstAttempts.map { "\($0.count) (\(RetryOutage.format($0.rate)) per second) connection attempts per outage" },
            worstRequests.map { "\($0) origin requests per download per outage" },
        ].compactMap { $0 }
        let most = worst.isEmpty ? "Retries held" : "At most " + worst.joined(separator: " and ")
        let bounds = "bounds: \(context.retryBurst) + \(RetryOutage.format(context.retryRate)) per second of outage "
            + "connection attempts, \(context.retryImmediateRun) immediate retry in a row per transfer or open connection cut, "
            + "\(context.maximumRequestsPerOutage) requests per download"
        return findings.verdict(
            passed: "\(most) over \(Wording.count(findings.checked, "outage")) (\(bounds)).",
            failed: "\(Wording.count(findings.violations.count, "retry storm")) (\(bounds)); first: \(Wording.first(findings)).",
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

    /// The outages `bounded-retries` judges: each span with none of a set of allowed
    /// interfaces up, with the downloads allowed exactly that set that were unfinished
    /// during it, in time order (ties: WiFi-only first).
    static func retryOutages(_ trace: ScenarioTrace) -> [RetryOutage] {
        var outages: [RetryOutage] = []
        for download in trace.downloads {
            for interval in trace.outages(of: download) where isUnfinished(download, during: interval) {
                let allowed = download.allowedInterfaces
                if let index = outages.firstIndex(where: { $0.allowed == allowed && $0.interval == interval }) {
                    outages[index].downloads.append(download)
                } else {
                    outages.append(RetryOutage(allowed: allowed, interval: interval, downloads: [download]))
                }
            }
        }
        return outages.sorted { ($0.interval.start, $0.allowed.count) < ($1.interval.start, $1.allowed.count) }
    }
}

/// One outage of a set of allowed interfaces with the unfinished downloads allowed
/// exactly those interfaces: what `bounded-retries` judges connection attempts over.
struct RetryOutage {
    var allowed: Set<InterfaceKind>
    var interval: TraceInterval
    var downloads: [TracedDownload]

    /// The connection-attempt check: the count, its rate and whether it breaks the bound, in words.
    func judgeAttempts(_ trace: ScenarioTrace, _ context: PropertyContext)
        -> (count: Int, rate: Double, violates: Bool, text: String)
    {
        let firstRequest = downloads.map(\.requestedAt).min() ?? interval.start
        let start = max(interval.start, firstRequest)
        let end = max(interval.end ?? trace.end, start)
        let attempts = trace.connectionAttempts(on: allowed, from: start, before: interval.end)
        let refused = attempts.filter { $0.outcome == .refused }.count
        let seconds = Double(end - start) / 1e9
        let rate = seconds > 0 ? Double(attempts.count) / seconds : 0
        let steady = context.retryRate.isNaN ? 0 : max(0, context.retryRate) * seconds
        let transferring = transfersCut
        let bound = Double(transferring) * (Double(context.retryBurst) + steady)
        let violates = Double(attempts.count) > bound
        let names = allowed.map(\.rawValue).sorted().joined(separator: " or ")
        let window = start > interval.start ? ", counted from the request at \(Wording.time(start))" : ""
        let tokens = downloads.map(\.token).joined(separator: ", ")
        let text = "\(Wording.count(attempts.count, "connection attempt")) on \(names) "
            + "(\(attempts.count - refused) accepted, \(refused) refused at the conditioner) during the outage from "
            + "\(Wording.time(interval.start)) (\(interval.startCause)) lasting \(Wording.seconds(end - interval.start))"
            + "\(window): \(Self.format(rate)) per second, "
            + (violates ? "above" : "within") + " the bound of \(Self.format(bound)) ("
            + (transferring > 1 ? "\(transferring) transfers cut × (" : "") + "\(context.retryBurst) + "
            + "\(Self.format(context.retryRate)) per second × \(Self.format(seconds)) s" + (transferring > 1 ? ")" : "") + "); "
            + "\(downloads.count == 1 ? "download" : "downloads") \(tokens) in flight (the app's attempts: the "
            + "conditioner cannot tell downloads apart)"
        return (attempts.count, rate, violates, text)
    }

    /// The transfers the outage cut (at least 1): its downloads `downloading` when it
    /// began, and those still `requested` (fetching their playlists or their license:
    /// their requests are cut and retried as a segment's are).
    var transfersCut: Int {
        max(1, downloads.filter { [.downloading, .requested].contains($0.state(atOrBefore: interval.start)) }.count)
    }

    /// A figure with one decimal (`12.5`); a non-finite one in words.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "n/a" : "unbounded" }
        return String(format: "%.1f", value)
    }
}
