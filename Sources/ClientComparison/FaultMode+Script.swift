import BenchCore
import BenchResults

extension FaultMode {
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
