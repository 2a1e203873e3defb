import AppProtocol
import BenchCore

/// How soon a download asked for its video again once the network came back, from the
/// evidence: the harness's own message to the app and the conditioner's read of the
/// app's next request, never the app's word that it resumed. Shared by the
/// `resume_request_latency_s` metric and its tests.
public struct ResumeRequest: Sendable, Hashable {
    /// The download and the outage (no interface it may use) that ended.
    public var response: OutageResponse
    /// When the app could first know an interface it may use was back: the first
    /// `setPath` the harness sent it with one (`pathGiven`) at or after the outage's
    /// end, else the end itself (a path update the profile withheld).
    public var told: UInt64
    /// The first request for the download's video the app sent after the end (`sentBy`).
    public var request: TracedOriginRequest

    /// From `told` to the request; 0 when the app asked before it was told (a retry of
    /// its own that found the interface up).
    public var latency: UInt64 { request.sentBy > told ? request.sentBy - told : 0 }
}

extension ScenarioTrace {
    /// One `ResumeRequest` per outage that ended while its download was transferring or
    /// suspended for the network (not paused, not finished, not removed) and after which
    /// the app asked for the video again before the download's next outage, the next
    /// kill or the end of the trace. An outage after which nothing was asked is left to
    /// `auto-suspend-on-disconnect` and `liveness`.
    public var resumeRequests: [ResumeRequest] {
        outageResponses.compactMap { response -> ResumeRequest? in
            guard response.isInvolved, let end = response.outage.end else { return nil }
            let download = response.download
            guard let state = download.state(atOrBefore: end),
                state == .downloading || OutageResponse.isNetworkSuspension(state)
            else { return nil }
            let limit = [response.nextOutageStart, restarts.map(\.kill.t).first { $0 > end }, traceEnd(after: end)]
                .compactMap { $0 }.min() ?? .max
            let told = pathGivenWith(download.allowedInterfaces, from: end).flatMap { $0 < limit ? $0 : nil } ?? end
            let request = originRequests(forVideo: download.video)
                .filter { $0.sentBy >= end && $0.sentBy < limit }
                .min { $0.sentBy < $1.sentBy }
            return request.map { ResumeRequest(response: response, told: told, request: $0) }
        }
    }

    /// The trace's end, as a limit after `t`.
    private func traceEnd(after t: UInt64) -> UInt64? { end > t ? end : nil }

    /// When the harness first sent the app a path with one of `interfaces` at or after `t`.
    private func pathGivenWith(_ interfaces: Set<InterfaceKind>, from t: UInt64) -> UInt64? {
        entries.first { entry in
            guard entry.t >= t, case .harness(.pathGiven(let given)) = entry.event else { return false }
            return !interfaces.isDisjoint(with: given)
        }?.t
    }
}
