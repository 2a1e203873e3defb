import ArgumentParser
import BenchCore
import ControlAPI
import Foundation
import LinkConditioner

/// `bench proxy`: the link conditioner standalone in front of any TCP server.
struct ProxyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proxy",
        abstract: "Run the link conditioner in front of any TCP server and play a profile's timeline.",
        discussion: """
            Prints one line per interface with the address to connect to, then the timeline as it \
            plays. Ctrl-C (or --duration) stops it and prints per-interface counters.
            Example: swift run bench proxy --profile Profiles/3g.yaml --upstream 127.0.0.1:8080
            As an HTTP proxy for any host: swift run bench proxy --profile Profiles/3g.yaml --http-proxy
            Seeing inside one host's HTTPS: swift run bench proxy --profile Profiles/3g.yaml --http-proxy --intercept cdn.example.com
            Driven by a test, as toxiproxy is (docs/control-api.md): swift run bench proxy --api 127.0.0.1:8474
            """
    )

    @Option(help: "The network profile (YAML); with --api alone, none is needed.")
    var profile: String?

    @Option(name: .customLong("api"), help: ArgumentHelp(
        "Serve toxiproxy's REST API on HOST:PORT (or PORT, on 127.0.0.1; toxiproxy's is 8474).",
        discussion: "Its clients create proxies (POST /proxies), add toxics (latency, bandwidth, timeout, reset_peer, slow_close, slicer, limit_data, packet_loss) and take them down (enabled: false); each proxy is a link of Deadzone's conditioner. Alone, or beside a profile's interfaces, which /deadzone drives (each interface up or down, the path update, the timeline paused, resumed or moved) and whose events GET /deadzone/events streams; the run then lasts until Ctrl-C. See docs/control-api.md."))
    var api: String?

    @Option(name: .customLong("api-token"), help: ArgumentHelp(
        "A token every API request must carry (Authorization: Bearer TOKEN); needed to bind the API beyond loopback.",
        discussion: "Also read from DEADZONE_API_TOKEN. Clients that cannot send headers may use http://user:TOKEN@HOST:PORT (HTTP Basic)."))
    var apiToken: String?

    @Option(help: "HOST:PORT every interface forwards to (or --http-proxy).")
    var upstream: String?

    @Flag(name: .customLong("http-proxy"), help: ArgumentHelp(
        "Make each interface an HTTP forward proxy for any host, instead of forwarding to --upstream.",
        discussion: "Point a device, a browser or a client's proxy setting at an interface: each connection goes where its first request names (CONNECT host:port, a tunnel, HTTPS included; or an absolute-form http:// URL, forwarded with Connection: close), looked up by name, over the interface's link."))
    var httpProxy = false

    @Option(name: .customLong("intercept"), help: ArgumentHelp(
        "With --http-proxy: a host (HOST or HOST:PORT) whose traffic is intercepted and recorded (repeatable).",
        discussion: "A CONNECT to it is answered with a certificate for it minted from a CA made for this run (--out DIR/ca.pem: the client must trust it); each request inside is forwarded to the real host over TLS, its certificate checked, and recorded in DIR/exchanges.jsonl with its interface. Other hosts stay blind tunnels, counted."))
    var intercept: [String] = []

    @Option(name: .customLong("upstream-ca"), help: "PEM file of CAs trusted for intercepted hosts, beside the system's.")
    var upstreamCA: String?

    @Option(name: .customLong("reuse-ca"), help: ArgumentHelp(
        "Keep the interception CA in this directory across runs (made there on first use, with its private key).",
        discussion: "Only for a device that must trust one CA once: anyone who reads DIR/ca-key.pem can impersonate any host to it."))
    var reuseCA: String?

    @Option(help: "With --intercept: where ca.pem, exchanges.jsonl and interception.json go.")
    var out: String = "Reports/proxy"

    @Option(help: "Listen address of the WiFi interface (port 0 picks one).")
    var wifi: String = ConditionerConfiguration.defaultListeners[.wifi]!.description

    @Option(help: "Listen address of the cellular interface (port 0 picks one).")
    var cellular: String = ConditionerConfiguration.defaultListeners[.cellular]!.description

    @Flag(help: "Send a PROXY protocol v1 line upstream naming the client and the interface address.")
    var proxyProtocol = false

    @Option(help: "Write every event as JSON lines to this file.")
    var events: String?

    @Option(help: "Stop after this long (e.g. 90s, 10m). Default: the profile's duration (with --api: until Ctrl-C); 'forever' runs until Ctrl-C.")
    var duration: String?

    @Option(help: "Override the profile's seed.")
    var seed: UInt64?

    func validate() throws {
        if let api {
            guard APIAddress(parsing: api) != nil else {
                throw ValidationError("--api expects HOST:PORT or PORT, e.g. 127.0.0.1:8474 (got '\(api)')")
            }
            let host = APIAddress(parsing: api)!.host
            if !ControlServer.isLoopback(host), resolvedToken == nil {
                throw ValidationError("--api \(api) would be reachable beyond this machine: give --api-token TOKEN (or DEADZONE_API_TOKEN), or bind 127.0.0.1")
            }
            if profile == nil {
                guard upstream == nil, !httpProxy, intercept.isEmpty else {
                    throw ValidationError("--upstream, --http-proxy and --intercept concern a profile's interfaces: give --profile too")
                }
                return
            }
        } else if apiToken != nil {
            throw ValidationError("--api-token guards the API: give --api HOST:PORT")
        }
        if profile == nil { throw ValidationError("give --profile FILE (or --api HOST:PORT to be driven through toxiproxy's API)") }
        switch (upstream, httpProxy) {
        case (nil, false): throw ValidationError("give --upstream HOST:PORT, or --http-proxy to forward to any host")
        case (.some, true): throw ValidationError("--upstream and --http-proxy exclude each other: an HTTP proxy's upstream is what each request names")
        default: break
        }
        if httpProxy, proxyProtocol {
            throw ValidationError("--proxy-protocol needs --upstream: a host an HTTP proxy reaches would not expect a PROXY line")
        }
        for (name, value) in [("--upstream", upstream ?? "0.0.0.0:1"), ("--wifi", wifi), ("--cellular", cellular)]
        where SocketAddress(parsing: value) == nil {
            throw ValidationError("\(name) expects HOST:PORT with a numeric host, e.g. 127.0.0.1:8080 (got '\(value)')")
        }
        if !intercept.isEmpty, !httpProxy {
            throw ValidationError("--intercept needs --http-proxy: only a forward proxy sees which host a connection is for")
        }
        for text in intercept {
            do { _ = try InterceptRule(parsing: text) } catch { throw ValidationError("\(error)") }
        }
        if intercept.isEmpty, upstreamCA != nil || reuseCA != nil {
            throw ValidationError("--upstream-ca and --reuse-ca concern interception: give --intercept HOST")
        }
        if let upstreamCA, !FileManager.default.isReadableFile(atPath: upstreamCA) {
            throw ValidationError("--upstream-ca \(upstreamCA): no readable file there")
        }
        if let duration, duration != "forever" {
            do { _ = try Units.parseDuration(duration) } catch {
                throw ValidationError("--duration: \(error) (or 'forever')")
            }
        }
    }

    /// The API's token: --api-token, else DEADZONE_API_TOKEN.
    var resolvedToken: String? {
        apiToken ?? ProcessInfo.processInfo.environment["DEADZONE_API_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    func run() async throws {
        var control: ProxyAPI?
        let deadzone = DeadzoneService()
        if let api { control = try await ProxyAPI.start(api, token: resolvedToken, deadzone: deadzone) }
        guard let profile else {
            await control?.runUntilInterrupted(limit: duration.flatMap { $0 == "forever" ? nil : try? Units.parseDuration($0) })
            return
        }
        var loaded: Profile
        do { loaded = try Profile.load(contentsOf: profile) } catch { exitBadInput("\(error)") }
        if let seed { loaded.seed = seed }
        let rules = intercept.compactMap { try? InterceptRule(parsing: $0) }
        var interception: ProxyInterception?
        if !rules.isEmpty {
            do {
                interception = try await ProxyInterception.start(rules: rules, directory: out, upstreamCA: upstreamCA, reuseCA: reuseCA)
            } catch { exitWithError("cannot start the intercepting proxy: \(error)", code: 1) }
        }
        var configuration = ConditionerConfiguration(
            upstream: upstream.flatMap(SocketAddress.init(parsing:)) ?? SocketAddress(host: "0.0.0.0", port: 0),
            listeners: [.wifi: SocketAddress(parsing: wifi)!, .cellular: SocketAddress(parsing: cellular)!],
            proxyProtocol: proxyProtocol,
            profile: loaded,
            forwardProxy: httpProxy
        )
        configuration.interception = interception?.conditionerInterception
        var sinks: [any EventSink] = [TerminalEventPrinter()]
        if let interception { sinks.append(interception.blindCounter) }
        let writer = try events.map { try JSONLinesEventWriter(path: $0) }
        if let writer { sinks.append(writer) }
        if control != nil { sinks.append(deadzone.feed) }

        let conditioner: LinkConditioner
        do {
            conditioner = try await LinkConditioner.start(configuration: configuration, sink: FanOutSink(sinks))
        } catch { exitWithError("\(error)", code: 1) }
        deadzone.attach(conditioner)
        print("profile \(loaded.name): \(loaded.description) (seed \(loaded.seed), \(Units.format(loaded.duration)))")
        for kind in InterfaceKind.allCases {
            print("\(kind) \(conditioner.endpoints[kind]!)")
        }
        interception?.interfacesListening(conditioner.endpoints)
        if let interception {
            print("intercepting \(rules.map(\.description).joined(separator: ", ")); the client must trust "
                + "\(interception.directory)/ca.pem (the CA \(reuseCA == nil ? "made for this run" : "kept in \(reuseCA!)"))")
        }
        print(upstream.map { "forwarding to \($0); Ctrl-C stops" }
            ?? "an HTTP proxy for any host on each interface (set it as the client's proxy); Ctrl-C stops")
        if let control {
            print("the interfaces, the timeline and the events on \(control.server.url)/deadzone (docs/control-api.md)")
        }
        fflush(nil)  // scripts reading a pipe wait for the interface lines

        // Driven through the API, the run lasts until Ctrl-C: the test says when it is over.
        let limit: Duration? = switch duration {
        case "forever"?: nil
        case let text?: try? Units.parseDuration(text)
        case nil: control == nil ? loaded.duration : nil
        }
        await waitForInterrupt(orAfter: limit)
        await control?.stop()
        let snapshot = await conditioner.snapshot()
        let closeResult = await conditioner.stop()
        // The event log's last writes are waited for off the cooperative pool.
        let logFailure = await OffPool.run { () -> JSONLinesEventWriter.WriteFailure? in
            defer { writer?.close() }
            return writer?.writeFailure
        }
        print(CountersTable.render(snapshot))
        let interceptionFailure = await interception?.finish()
        if closeResult != 0 { print("warning: uv_loop_close returned \(closeResult) (a handle leaked)") }
        if let logFailure { exitWithError("\(logFailure)", code: 1) }
        if let interceptionFailure { exitWithError(interceptionFailure, code: 1) }
    }
}
