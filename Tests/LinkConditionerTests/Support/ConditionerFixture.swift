import BenchCore
import Foundation
@testable import LinkConditioner

/// A running conditioner in front of a `TestUpstream`, with its events collected.
struct ConditionerFixture {
    let upstream: TestUpstream
    let conditioner: LinkConditioner
    let events: EventCollector

    init(
        behaviour: TestUpstream.Behaviour,
        wifi: InterfaceSetup = .defaultSetup(for: .wifi),
        cellular: InterfaceSetup = .defaultSetup(for: .cellular),
        timeline: [Phase] = [],
        pathUpdates: PathUpdatePolicy = .immediate,
        proxyProtocol: Bool = false,
        stallThreshold: Duration = .seconds(1),
        listeners: [InterfaceKind: SocketAddress] = ConditionerConfiguration.defaultListeners,
        countsRefusals: Bool = false,
        holds: [InterfaceKind: DownMode] = [:],
        interception: ConditionerConfiguration.Interception? = nil
    ) async throws {
        upstream = try TestUpstream(behaviour: behaviour)
        events = EventCollector()
        let profile = Profile(name: "test", seed: 7, duration: .seconds(120),
                              initial: [.wifi: wifi, .cellular: cellular], timeline: timeline, pathUpdates: pathUpdates)
        conditioner = try await LinkConditioner.start(
            configuration: ConditionerConfiguration(upstream: upstream.address, listeners: listeners,
                                                    proxyProtocol: proxyProtocol, profile: profile,
                                                    holds: holds, progressInterval: .milliseconds(50),
                                                    stallThreshold: stallThreshold, countsRefusals: countsRefusals,
                                                    interception: interception),
            sink: events)
    }

    func endpoint(_ kind: InterfaceKind) -> SocketAddress { conditioner.endpoints[kind]! }

    /// Stops everything and returns what `uv_loop_close` said; the join of the loop
    /// thread waits off the cooperative pool.
    @discardableResult
    func stop() async -> Int32 {
        let rc = await conditioner.stop()
        upstream.stop()
        return rc
    }

    /// Stops everything without waiting (for a `defer`, which cannot await): the join of
    /// the loop thread happens on a thread outside the cooperative pool.
    func stopSoon() {
        let (conditioner, upstream) = (conditioner, upstream)
        Task.detached { _ = await conditioner.stop(); upstream.stop() }
    }

    func kinds() -> [ConditionerEvent.Kind] { events.all.map(\.kind) }
}

extension InterfaceSetup {
    static func shaped(downlink: LinkDirectionParameters, uplink: LinkDirectionParameters = .transparent,
                       faults: ConnectionFaults = .none, expensive: Bool = false) -> InterfaceSetup {
        InterfaceSetup(state: .up, link: InterfaceLink(downlink: downlink, uplink: uplink, faults: faults,
                                                       isExpensive: expensive))
    }
}
