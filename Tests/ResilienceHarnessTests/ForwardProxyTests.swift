import BenchCore
import FixtureOrigin
import Foundation
import LinkConditioner
import Testing
import TestSupport

/// An interface's listener is an HTTP forward proxy too (`setPath`'s `proxy`): curl,
/// told `-x http://<endpoint>`, writes the absolute-form request line; the conditioner
/// carries it over the interface's link (its delay applies) with a PROXY header, and
/// the origin answers the path and attributes the request to the interface. A client
/// that asks for a tunnel (`CONNECT`) gets one to the origin, over the same link.
@Suite(.timeLimit(.minutes(2))) struct ForwardProxyTests {
    /// The fixture origin (PROXY header required; HTTPS too with `tls`) behind a
    /// conditioner listening on `listeners` (ephemeral ports), WiFi's downlink delayed
    /// 300 ms and cellular expensive, recording into `events`; `body` runs with both,
    /// which are stopped after it, whether it threw or not.
    func withProxiedOrigin(
        listeners: (wifi: String, cellular: String), tls: RunCertificateAuthority? = nil,
        events: EventCollector = EventCollector(), _ body: (OriginServer, LinkConditioner) async throws -> Void
    ) async throws {
        var configuration = OriginConfiguration(catalog: CatalogConfiguration(sizeScale: 0.01, largeVideoDuration: 60), threads: 1)
        configuration.requiresProxyHeader = true
        configuration.tls = tls
        let slow = LinkDirectionParameters(delay: .milliseconds(300))
        let profile = Profile(
            name: "proxy", seed: 1, duration: .seconds(600),
            initial: [.wifi: InterfaceSetup(state: .up, link: InterfaceLink(downlink: slow)),
                      .cellular: InterfaceSetup(state: .up, link: InterfaceLink(isExpensive: true))])
        let server = try await OriginServer.start(configuration: configuration)
        let conditioner: LinkConditioner
        do {
            conditioner = try await LinkConditioner.start(
                configuration: ConditionerConfiguration(
                    upstream: SocketAddress(host: "127.0.0.1", port: UInt16(server.port)),
                    listeners: [.wifi: SocketAddress(host: listeners.wifi, port: 0),
                                .cellular: SocketAddress(host: listeners.cellular, port: 0)],
                    proxyProtocol: true, profile: profile, playTimeline: false),
                sink: events)
        } catch {
            try? await server.stop()
            throw error
        }
        do {
            try await body(server, conditioner)
        } catch {
            await conditioner.stop()
            try? await server.stop()
            throw error
        }
        await conditioner.stop()
        try await server.stop()
    }

    @Test func curlThroughEachInterfacesProxyReachesTheOriginAttributed() async throws {
        // The origin names an interface by the listener its PROXY header names (the harness
        // maps listeners to interfaces, `ScenarioNetwork.interfaces`).
        try await withProxiedOrigin(listeners: ("127.0.0.14", "127.0.0.15")) { server, conditioner in
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
        }
    }

    @Test func connectTunnelsThroughEachInterfaceReachTheOriginAttributed() async throws {
        let events = EventCollector()
        try await withProxiedOrigin(listeners: ("127.0.0.16", "127.0.0.17"), events: events) { server, conditioner in
            let origin = "127.0.0.1:\(server.port)"
            // curl: `-p` asks for a tunnel even for http URLs.
            let wifi = try #require(conditioner.endpoints[.wifi])
            let started = ContinuousClock.now
            let curl = try await ChildProcess.run(
                "curl", ["-sS", "--max-time", "30", "-p", "-x", "http://\(wifi)", "http://\(origin)/videos/clear/master.m3u8"],
                timeout: .seconds(60))
            let took = ContinuousClock.now - started
            #expect(curl.status == 0 && curl.stdout.hasPrefix("#EXTM3U"), "\(curl.stderr)")
            #expect(took >= .milliseconds(600), "the 200 and the response each cross the 300 ms downlink (took \(took))")
            // Python's http.client, as an app's own client would: set_tunnel through cellular.
            let cellular = try #require(conditioner.endpoints[.cellular])
            let script = """
                import http.client, sys
                c = http.client.HTTPConnection("\(cellular.host)", \(cellular.port), timeout=30)
                c.set_tunnel("127.0.0.1", \(server.port))
                c.request("GET", "/videos/clear/master.m3u8")
                r = c.getresponse()
                sys.stdout.write(str(r.status) + " " + r.read().decode()[:7])
                """
            let python = try await ChildProcess.run("python3", ["-c", script], timeout: .seconds(60))
            #expect(python.stdout == "200 #EXTM3U", "\(python.stdout) \(python.stderr)")
            await eventually("both requests in the origin's log") { server.requestLog.count >= 2 }
            let log = server.requestLog
            #expect(log.map(\.path) == ["/videos/clear/master.m3u8", "/videos/clear/master.m3u8"], "\(log)")
            #expect(log.map(\.interface) == [wifi.description, cellular.description], "\(log)")
            let tunnels = events.all.compactMap { event -> String? in
                guard case let .tunnelOpened(_, interface, target) = event.kind else { return nil }
                return "\(interface.rawValue) \(target)"
            }
            #expect(tunnels == ["wifi \(origin)", "cellular \(origin)"])

            // A tunnel anywhere else is refused, saying where this proxy reaches; the origin sees nothing.
            let elsewhere = try await ChildProcess.run(
                "curl", ["-sS", "-v", "--max-time", "30", "-p", "-x", "http://\(wifi)", "http://127.0.0.1:9/"],
                timeout: .seconds(60))
            #expect(elsewhere.status != 0 && elsewhere.stderr.contains("403"), "\(elsewhere.stderr)")
            #expect(server.requestLog.count == 2)
        }
    }

    /// HTTPS: the origin serves TLS on its port with a certificate from a CA made for the
    /// run; curl and Python's urllib, given that CA, tunnel to it through each interface's
    /// proxy and check the certificate end to end, over the link's delay, and the origin
    /// attributes each request to its interface (the PROXY line comes before the TLS
    /// bytes). Without the CA, curl refuses the certificate; plain HTTP still works there.
    @Test func httpsThroughATunnelReachesTheTLSOriginAttributed() async throws {
        let authority = try RunCertificateAuthority.make()
        let directory = NSTemporaryDirectory() + "deadzone-ca-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let ca = directory + "/ca.pem"
        try Data(authority.caPEM.utf8).write(to: URL(fileURLWithPath: ca))
        try await withProxiedOrigin(listeners: ("127.0.0.20", "127.0.0.21"), tls: authority) { server, conditioner in
            let url = "https://127.0.0.1:\(server.port)/videos/clear/master.m3u8"
            let wifi = try #require(conditioner.endpoints[.wifi]), cellular = try #require(conditioner.endpoints[.cellular])
            let started = ContinuousClock.now
            let curl = try await ChildProcess.run(
                "curl", ["-sS", "--max-time", "30", "--noproxy", "", "-x", "http://\(wifi)", "--cacert", ca, url],
                timeout: .seconds(60))
            let took = ContinuousClock.now - started
            #expect(curl.status == 0 && curl.stdout.hasPrefix("#EXTM3U"), "\(curl.stderr)")
            #expect(took >= .milliseconds(900), "the 200, the handshake and the answer each cross the 300 ms link (took \(took))")
            let urllib = """
                import ssl, sys, urllib.request
                context = ssl.create_default_context(cafile=sys.argv[2])
                opener = urllib.request.build_opener(
                    urllib.request.ProxyHandler({"https": sys.argv[1]}), urllib.request.HTTPSHandler(context=context))
                sys.stdout.write(opener.open(sys.argv[3], timeout=30).read().decode()[:7])
                """
            let python = try await ChildProcess.run(
                "python3", ["-c", urllib, "http://\(cellular)", ca, url], timeout: .seconds(60),
                environment: ["no_proxy": "", "NO_PROXY": ""])
            #expect(python.stdout == "#EXTM3U", "\(python.stdout) \(python.stderr)")
            await eventually("both requests in the origin's log") { server.requestLog.count >= 2 }
            #expect(server.requestLog.map(\.interface) == [wifi.description, cellular.description], "\(server.requestLog)")

            let untrusted = try await ChildProcess.run(
                "curl", ["-sS", "--max-time", "30", "--noproxy", "", "-x", "http://\(wifi)", url], timeout: .seconds(60))
            #expect(untrusted.status == 60, "curl checks the certificate and does not trust it without the CA: \(untrusted.stderr)")
            let plain = try await ChildProcess.run(
                "curl", ["-sS", "--max-time", "30", "--noproxy", "", "-x", "http://\(wifi)",
                         "http://127.0.0.1:\(server.port)/videos/clear/master.m3u8"], timeout: .seconds(60))
            #expect(plain.stdout.hasPrefix("#EXTM3U"), "plain HTTP on the same port: \(plain.stderr)")
        }
    }
}
