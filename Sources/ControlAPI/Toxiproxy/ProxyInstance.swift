import BenchCore
import LinkConditioner

/// One toxiproxy proxy, running: a `LinkConditioner` whose WiFi interface listens where the
/// proxy listens and forwards to its upstream over the link its toxics make. (The
/// conditioner's cellular interface is kept down and unreachable.) `enabled: false` is the
/// interface down in `reset` mode: open connections reset, new ones refused.
final class ProxyInstance: Sendable {
    let conditioner: LinkConditioner
    /// Where it listens, the port resolved.
    let listen: SocketAddress
    let upstream: SocketAddress

    private init(conditioner: LinkConditioner, upstream: SocketAddress) {
        self.conditioner = conditioner
        self.upstream = upstream
        listen = conditioner.endpoints[.wifi]!
    }

    /// Binds `listen` and starts forwarding (or refusing, when not `enabled`).
    static func start(
        listen: SocketAddress, upstream: SocketAddress, link: InterfaceLink, enabled: Bool, seed: UInt64, sink: any EventSink
    ) async throws -> ProxyInstance {
        let profile = Profile(
            name: "toxiproxy", seed: seed,
            initial: [
                .wifi: InterfaceSetup(state: enabled ? .up : .down(.reset), link: link),
                .cellular: InterfaceSetup(state: .down(.refuse)),
            ])
        let configuration = ConditionerConfiguration(
            upstream: upstream,
            listeners: [.wifi: listen, .cellular: SocketAddress(host: loopbackHost(like: listen), port: 0)],
            profile: profile, playTimeline: false)
        let conditioner = try await LinkConditioner.start(configuration: configuration, sink: sink)
        return ProxyInstance(conditioner: conditioner, upstream: upstream)
    }

    /// The link its toxics make now; open connections feel it at once.
    func apply(_ link: InterfaceLink) { conditioner.setLink(.wifi, link) }

    /// Up, or down in `reset` mode.
    func setEnabled(_ enabled: Bool) { conditioner.setState(.wifi, enabled ? .up : .down(.reset)) }

    /// Closes the listener and every connection.
    func stop() async { await conditioner.stop() }

    private static func loopbackHost(like address: SocketAddress) -> String {
        address.host.contains(":") ? "::1" : "127.0.0.1"
    }
}
