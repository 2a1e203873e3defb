import Foundation
import AppProtocol

extension ScenarioMetrics {
    /// The prefix of the harness note that carries the agent's peak resident set:
    /// `.harness(.note("agent_peak_rss_bytes=123456789"))`. The runner samples the
    /// agent (e.g. `VmHWM` in `/proc/<pid>/status` before it exits) and writes one such
    /// note per agent process; `measure` keeps the largest. Without one the figure is nil.
    public static let peakRSSNotePrefix = "agent_peak_rss_bytes="

    /// Measures a scenario from its trace. Pure; called by the runner once per scenario.
    ///
    /// - `timeToCompleteSeconds`: first `downloadRequested` → last change to `downloaded`.
    /// - `goodputBitsPerSecond`: content bytes (sum of `segmentStored` bytes) × 8 over that time.
    /// - `bytesByInterface`: origin `bytesSent` summed by the request's `interface`
    ///   (requests with none, i.e. direct connections, are left out).
    /// - `wastedBytes`: origin bytes sent for media-segment or stored paths, minus the
    ///   content bytes stored (never below 0); nil when no such request was logged.
    /// - `suspendLatencySeconds` / `resumeLatencySeconds`: the worst `OutageResponse` latency.
    /// - `resumeRequestLatencySeconds`: the worst `ResumeRequest` latency (evidence only).
    /// - `bytesRefetchedAfterCrash`: origin bytes of `refetchCheck` refetches (paths the
    ///   harness found stored whole on disk at the kill) after kills followed by a launch
    ///   that keeps downloads (crash, memory pressure, clean); nil when there was no such kill.
    /// - `requestsDuringOutages`: origin requests for a download's video that started
    ///   during one of its outages while it was unfinished; nil when it had none.
    /// - `agentPeakRSSBytes`: from notes, see `peakRSSNotePrefix`.
    public static func measure(_ trace: ScenarioTrace) -> ScenarioMetrics {
        let time = timeToComplete(trace)
        let content = trace.segmentsStored.reduce(0) { $0.plus(Int(clamping: $1.bytes)) }
        let responses = trace.outageResponses
        return ScenarioMetrics(
            timeToCompleteSeconds: time,
            goodputBitsPerSecond: time.flatMap { $0 > 0 ? Double(content) * 8 / $0 : nil },
            bytesByInterface: bytesByInterface(trace),
            wastedBytes: wastedBytes(trace, content: content),
            suspendLatencySeconds: responses.compactMap(\.suspendLatency).max().map(seconds),
            resumeLatencySeconds: responses.compactMap(\.resumeLatency).max().map(seconds),
            resumeRequestLatencySeconds: trace.resumeRequests.map(\.latency).max().map(seconds),
            bytesRefetchedAfterCrash: bytesRefetched(trace),
            requestsDuringOutages: requestsDuringOutages(trace),
            agentPeakRSSBytes: peakRSS(trace))
    }

    private static func seconds(_ nanoseconds: UInt64) -> Double {
        Double(nanoseconds) / 1e9
    }

    private static func timeToComplete(_ trace: ScenarioTrace) -> Double? {
        guard let first = trace.downloads.map(\.requestedAt).min() else { return nil }
        let done = trace.downloads.flatMap(\.changes).filter { $0.to == .downloaded }.map(\.t).max()
        guard let done, done >= first else { return nil }
        return seconds(done - first)
    }

    private static func bytesByInterface(_ trace: ScenarioTrace) -> [String: Int] {
        var bytes: [String: Int] = [:]
        for request in trace.originRequests {
            guard let interface = request.record.interface else { continue }
            bytes[interface] = (bytes[interface] ?? 0).plus(request.record.bytesSent)
        }
        return bytes
    }

    private static func wastedBytes(_ trace: ScenarioTrace, content: Int) -> Int? {
        let storedPaths = Set(trace.segmentsStored.map(\.path))
        let segmentRequests = trace.originRequests.filter {
            OriginPath.isMediaSegment($0.path) || storedPaths.contains($0.path)
        }
        guard !segmentRequests.isEmpty else { return nil }
        let sent = segmentRequests.reduce(0) { $0.plus($1.record.bytesSent) }
        return max(0, sent.plus(-content))
    }

    private static func bytesRefetched(_ trace: ScenarioTrace) -> Int? {
        let kept = trace.restarts.indices.filter { index in
            trace.restarts[index].launch.map { !$0.after.failsDownloadsInFlight } ?? false
        }
        guard !kept.isEmpty else { return nil }
        return kept.compactMap { trace.refetchCheck(restart: $0) }
            .flatMap(\.refetches)
            .reduce(0) { $0.plus($1.request.record.bytesSent) }
    }

    private static func requestsDuringOutages(_ trace: ScenarioTrace) -> Int? {
        var total: Int?
        for download in trace.downloads {
            for outage in trace.outages(of: download) where Property.isUnfinished(download, during: outage) {
                total = (total ?? 0) + Property.requests(of: download, during: outage, trace).count
            }
        }
        return total
    }

    private static func peakRSS(_ trace: ScenarioTrace) -> Int? {
        trace.notes.compactMap { note -> Int? in
            guard note.text.hasPrefix(peakRSSNotePrefix) else { return nil }
            return Int(note.text.dropFirst(peakRSSNotePrefix.count).trimmingCharacters(in: .whitespaces))
        }.max()
    }
}
