import BenchCore
import LinkConditioner

/// Drops every event: the benchmark measures the data path, not the event sink.
struct PerfNullSink: EventSink {
    func record(_ event: ConditionerEvent) {}
}

/// An in-process `LinkConditioner` in front of a local server, wifi only shaped.
enum PerfProxyHarness {
    static let wifiHost = "127.0.0.2"

    /// Starts a conditioner forwarding to 127.0.0.1:`upstreamPort`, wifi on 127.0.0.2 (ephemeral port),
    /// with `downlink` as the wifi downlink (uplink transparent). Its loop thread inherits the
    /// caller's CPU affinity.
    static func start(upstreamPort: UInt16, downlink: LinkDirectionParameters = .transparent) throws -> LinkConditioner {
        let profile = Profile(
            name: "perf",
            description: "bench perf proxy",
            duration: .seconds(3600),
            initial: [.wifi: InterfaceSetup(state: .up, link: InterfaceLink(downlink: downlink))]
        )
        let configuration = ConditionerConfiguration(
            upstream: SocketAddress(host: "127.0.0.1", port: upstreamPort),
            listeners: [.wifi: SocketAddress(host: wifiHost, port: 0), .cellular: SocketAddress(host: "127.0.0.3", port: 0)],
            profile: profile
        )
        // Started from a thread named dz-loop so that the loop thread it creates carries that name
        // (threads inherit the name and the CPU affinity of their creator).
        return try perfOnThread(name: "dz-loop") {
            try LinkConditioner.start(configuration: configuration, sink: PerfNullSink())
        }
    }

    /// Port of the wifi listener.
    static func wifiPort(_ conditioner: LinkConditioner) throws -> UInt16 {
        guard let endpoint = conditioner.endpoints[.wifi] else { throw PerfError("the conditioner has no wifi endpoint") }
        return endpoint.port
    }
}
