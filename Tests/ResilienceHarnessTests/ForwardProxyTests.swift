import BenchCore
import FixtureOrigin
import Foundation
import LinkConditioner
import Testing
import TestSupport

/// An interface's listener is an HTTP forward proxy too (`setPath`'s `proxy`): curl,
/// told `-x http://<endpoint>`, writes the absolute-form request line; the conditioner
/// carries it over the interface's link (its delay applies) with a PROXY header, and
/// the origin answers the path and attributes the request to the interface.
@Suite(.timeLimit(.minutes(2))) struct ForwardProxyTests {
    @Test func curlThroughEachInterfacesProxyReachesTheOriginAttributed() async throws {
        var configuration = OriginConfiguration(catalog: CatalogConfiguration(sizeScale: 0.01, largeVideoDuration: 60), threads: 1)
        configuration.requiresProxyHeader = true
        let wifiAddress = SocketAddress(host: "127.0.0.14", port: 0), cellularAddress = SocketAddress(host: "127.0.0.15", port: 0)
        let slow = LinkDirectionParameters(delay: .milliseconds(300))
        let profile = Profile(
            name: "proxy", seed: 1, duration: .seconds(600),
            initial: [.wifi: InterfaceSetup(state: .up, link: InterfaceLink(downlink: slow)),
                      .cellular: InterfaceSetup(state: .up, link: InterfaceLink(isExpensive: true))])
        // The origin names an interface by the listener its PROXY header names (the harness
        // maps listeners to interfaces, `ScenarioNetwork.interfaces`).
        let server = try await OriginServer.start(configuration: configuration)
        let conditioner = try await LinkConditioner.start(
            configuration: ConditionerConfiguration(
                upstream: SocketAddress(host: "127.0.0.1", port: UInt16(server.port)),
                listeners: [.wifi: wifiAddress, .cellular: cellularAddress], proxyProtocol: true, profile: profile,
                playTimeline: false),
            sink: EventCollector())
        do {
            for kind in [InterfaceKind.wifi, .cellular] {
                let endpoint = try #require(conditioner.endpoints[kind])
                let started = ContinuousClock.now
                let curl = try await ChildProcess.run(
                    "curl", ["-sS", "--max-time", "30", "-x", "http://\(endpoint)", "http://fixture.example/videos/clear/master.m3u8"],
                    timeout: .seconds(60))
                let took = ContinuousClock.now - started
                #expect(curl.status == 0 && curl.stdout.hasPrefix("#EXTM3U"), "\(kind): \(curl.stderr)")
                if kind == .wifi { #expect(took >= .milliseconds(300), "the WiFi link's 300 ms delay applies (took \(took))") }
            }
            await eventually("both requests in the origin's log") { server.requestLog.count >= 2 }
            let log = server.requestLog
            #expect(log.map(\.path) == ["/videos/clear/master.m3u8", "/videos/clear/master.m3u8"], "\(log)")
            #expect(log.map(\.interface) == [conditioner.endpoints[.wifi]?.description, conditioner.endpoints[.cellular]?.description],
                    "\(log)")
        } catch {
            await conditioner.stop()
            try? await server.stop()
            throw error
        }
        await conditioner.stop()
        try await server.stop()
    }
}
