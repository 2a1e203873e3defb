import BenchCore
import Foundation

/// What a scenario measured. Every figure is optional: nil when the scenario did not
/// exercise it (no outage, no crash…). Units are in the names.
public struct ScenarioMetrics: Sendable, Hashable, Codable {
    /// From the first download request to the last download finished.
    public var timeToCompleteSeconds: Double?
    /// Content bytes stored over `timeToCompleteSeconds`, in bits per second.
    public var goodputBitsPerSecond: Double?
    /// Bytes sent down to the app through each interface (`wifi`, `cellular`).
    public var bytesByInterface: [String: Int]
    /// Bytes the origin sent beyond the content stored (re-fetches, cut responses).
    public var wastedBytes: Int?
    /// From the last allowed interface going down to every running download suspended.
    public var suspendLatencySeconds: Double?
    /// From an allowed interface coming back to every suspended download downloading.
    public var resumeLatencySeconds: Double?
    /// From the app being told an allowed interface was back to its next request for the
    /// download's video (as the conditioner read it), the worst over outages: resume
    /// promptness from the evidence, not from the app's word.
    public var resumeRequestLatencySeconds: Double?
    /// Body bytes of segments fetched again after a crash (beyond their `.part`).
    public var bytesRefetchedAfterCrash: Int?
    /// Requests that reached the origin while no allowed interface was up.
    public var requestsDuringOutages: Int?
    /// Peak resident set of the agent process, in bytes.
    public var agentPeakRSSBytes: Int?

    /// Creates metrics; everything starts empty.
    public init(
        timeToCompleteSeconds: Double? = nil, goodputBitsPerSecond: Double? = nil, bytesByInterface: [String: Int] = [:],
        wastedBytes: Int? = nil, suspendLatencySeconds: Double? = nil, resumeLatencySeconds: Double? = nil,
        resumeRequestLatencySeconds: Double? = nil, bytesRefetchedAfterCrash: Int? = nil,
        requestsDuringOutages: Int? = nil, agentPeakRSSBytes: Int? = nil
    ) {
        self.timeToCompleteSeconds = timeToCompleteSeconds
        self.goodputBitsPerSecond = goodputBitsPerSecond
        self.bytesByInterface = bytesByInterface
        self.wastedBytes = wastedBytes
        self.suspendLatencySeconds = suspendLatencySeconds
        self.resumeLatencySeconds = resumeLatencySeconds
        self.resumeRequestLatencySeconds = resumeRequestLatencySeconds
        self.bytesRefetchedAfterCrash = bytesRefetchedAfterCrash
        self.requestsDuringOutages = requestsDuringOutages
        self.agentPeakRSSBytes = agentPeakRSSBytes
    }

    /// The scalar figures by stable name (the names the baseline file uses), nil ones left out.
    public var figures: [String: Double] {
        var figures: [String: Double] = [:]
        figures["time_to_complete_s"] = timeToCompleteSeconds
        figures["goodput_bps"] = goodputBitsPerSecond
        figures["wasted_bytes"] = wastedBytes.map(Double.init)
        figures["suspend_latency_s"] = suspendLatencySeconds
        figures["resume_latency_s"] = resumeLatencySeconds
        figures["resume_request_latency_s"] = resumeRequestLatencySeconds
        figures["bytes_refetched_after_crash"] = bytesRefetchedAfterCrash.map(Double.init)
        figures["requests_during_outages"] = requestsDuringOutages.map(Double.init)
        figures["agent_peak_rss_bytes"] = agentPeakRSSBytes.map(Double.init)
        for (interface, bytes) in bytesByInterface { figures["bytes_\(interface)"] = Double(bytes) }
        return figures
    }
}
