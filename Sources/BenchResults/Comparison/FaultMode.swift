import BenchCore

/// One network condition every client of a comparison is run under, with the same
/// seed for each client so that each meets the same faults.
///
/// The profile gives the base links (`ComparisonLinks`); a mode changes them or plays a
/// short script against the bytes the client has received (`FaultScript`).
public enum FaultMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// No shaping at all: loopback speed, no delay, loss or fault. The reference.
    case clean
    /// The profile's WiFi link with its downlink rate cut to `FaultSettings.capFactor`.
    case bandwidthCap = "bandwidth-cap"
    /// The profile's WiFi link with `FaultSettings.addedDelaySeconds` more each way, and jitter.
    case highLatency = "high-latency"
    /// WiFi goes down with RST (new connections refused) once `FaultSettings.outageAt`
    /// of the content has arrived, for `FaultSettings.outageSeconds`, then comes back.
    case resetWindow = "reset-window"
    /// The same window, but blackholed: connections stay open and nothing moves.
    case blackholeWindow = "blackhole-window"
    /// The profile's WiFi link with connections reset at random,
    /// `FaultSettings.resetsPerMiB` per MiB forwarded.
    case randomResets = "random-resets"
    /// WiFi is gone (down, refused) the whole run; the client's URL goes through the
    /// cellular interface with the profile's cellular link, as the OS would route it.
    case cellularOnly = "cellular-only"
    /// The client is SIGKILLed (with its whole process group) once
    /// `FaultSettings.killAt` of the content has arrived, then run again with the same
    /// command, work directory and output: does it resume or start over?
    case killRerun = "kill-rerun"

    /// One line for people.
    public var summary: String {
        switch self {
        case .clean: "no shaping: loopback speed, no delay, loss or fault"
        case .bandwidthCap: "the profile's WiFi link with its downlink rate cut to a quarter"
        case .highLatency: "the profile's WiFi link with 300 ms more delay each way (±30 ms jitter)"
        case .resetWindow: "WiFi down with RST for 10 s once 30% of the content has arrived"
        case .blackholeWindow: "WiFi blackholed for 10 s once 30% of the content has arrived"
        case .randomResets: "the profile's WiFi link with random connection resets, one per 2 MiB on average"
        case .cellularOnly: "WiFi gone, the client routed through the cellular link"
        case .killRerun: "SIGKILL at 50% of the content, then the same command again"
        }
    }

    /// The interface the client's URLs go through.
    public var clientInterface: InterfaceKind {
        self == .cellularOnly ? .cellular : .wifi
    }
}

/// The numbers behind the fault modes. Defaults are the ones `FaultMode.summary` states.
public struct FaultSettings: Sendable, Hashable, Codable {
    /// `bandwidth-cap`: the fraction of the base downlink rate kept. Default 0.25.
    public var capFactor: Double
    /// `high-latency`: delay added each way, seconds. Default 0.3.
    public var addedDelaySeconds: Double
    /// The outage windows: when (a fraction of the content received) and how long.
    /// Defaults 0.3 and 10 s.
    public var outageAt: Double
    public var outageSeconds: Double
    /// `random-resets`: the probability of a reset per MiB forwarded. Default 0.5.
    public var resetsPerMiB: Double
    /// `kill-rerun`: the fraction of the content received at the kill. Default 0.5.
    public var killAt: Double

    /// Creates settings; every field has its default.
    public init(
        capFactor: Double = 0.25, addedDelaySeconds: Double = 0.3, outageAt: Double = 0.3,
        outageSeconds: Double = 10, resetsPerMiB: Double = 0.5, killAt: Double = 0.5
    ) {
        self.capFactor = capFactor
        self.addedDelaySeconds = addedDelaySeconds
        self.outageAt = outageAt
        self.outageSeconds = outageSeconds
        self.resetsPerMiB = resetsPerMiB
        self.killAt = killAt
    }
}
