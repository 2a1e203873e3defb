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

    /// The interfaces at the start of a run of this mode.
    public func initialSetup(base: ComparisonLinks, settings: FaultSettings) -> [InterfaceKind: InterfaceSetup] {
        var wifi = base.wifi
        switch self {
        case .clean:
            wifi = InterfaceLink()
        case .bandwidthCap:
            wifi.downlink.rate = .constant(bitsPerSecond: base.wifiDownlinkBitsPerSecond * settings.capFactor)
        case .highLatency:
            let added = Duration.milliseconds(Int64((settings.addedDelaySeconds * 1000).rounded()))
            wifi.downlink.delay += added
            wifi.uplink.delay += added
            wifi.downlink.jitter = max(wifi.downlink.jitter, added / 10)
        case .randomResets:
            wifi.faults.resetProbabilityPerMB = settings.resetsPerMiB
        case .resetWindow, .blackholeWindow, .cellularOnly, .killRerun:
            break
        }
        return [
            .wifi: InterfaceSetup(state: self == .cellularOnly ? .down(.refuse) : .up, link: wifi),
            .cellular: InterfaceSetup(state: .up, link: base.cellular),
        ]
    }

    /// The script the mode plays during a run.
    public func script(settings: FaultSettings) -> FaultScript {
        switch self {
        case .resetWindow:
            FaultScript(.outage(at: settings.outageAt, mode: .reset, interface: .wifi, seconds: settings.outageSeconds))
        case .blackholeWindow:
            FaultScript(.outage(at: settings.outageAt, mode: .blackhole, interface: .wifi, seconds: settings.outageSeconds))
        case .killRerun:
            FaultScript(.kill(at: settings.killAt))
        case .clean, .bandwidthCap, .highLatency, .randomResets, .cellularOnly:
            FaultScript(nil)
        }
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

/// The WiFi and cellular links a comparison starts from: the profile's initial links,
/// with an unshaped rate given a fixed one (`ComparisonLinks.unshapedRate`) so that
/// transfers take long enough for the scripts to act.
public struct ComparisonLinks: Sendable, Equatable {
    /// The rate an unshaped interface gets, bits per second (as the scenario suite does).
    public static let unshapedRate = 8_000_000.0

    public var wifi: InterfaceLink
    public var cellular: InterfaceLink

    /// The links of `profile`'s initial interfaces.
    public init(profile: Profile) {
        wifi = (profile.initial[.wifi]?.link ?? InterfaceSetup.defaultSetup(for: .wifi).link).withUnshapedRates(Self.unshapedRate)
        cellular = (profile.initial[.cellular]?.link ?? InterfaceSetup.defaultSetup(for: .cellular).link)
            .withUnshapedRates(Self.unshapedRate)
    }

    /// Links given directly (tests).
    public init(wifi: InterfaceLink, cellular: InterfaceLink) {
        self.wifi = wifi
        self.cellular = cellular
    }

    /// The WiFi downlink's mean rate.
    public var wifiDownlinkBitsPerSecond: Double {
        wifi.downlink.rate.meanBitsPerSecond ?? Self.unshapedRate
    }
}
