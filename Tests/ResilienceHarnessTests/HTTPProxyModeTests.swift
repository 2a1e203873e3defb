import BenchCore
import FixtureOrigin
import Foundation
import LinkConditioner
import Testing
import TestSupport

/// `bench proxy --http-proxy`: each interface is an HTTP forward proxy for any host, the
/// upstream of each connection being what its first request names, looked up by name.
/// curl and Python's urllib, told the WiFi interface as their proxy, fetch plain HTTP
/// from the fixture origin by two names (each request on its own connection) and HTTPS
/// from a local TLS server through a CONNECT tunnel (the certificate checked end to
/// end), every answer over the link's 300 ms delay; what cannot be reached gets 502, a
/// request that is not a proxy's gets 400.
@Suite(.timeLimit(.minutes(2))) struct HTTPProxyModeTests {
    /// A scratch directory with a throwaway certificate for `localhost` and a Python
    /// HTTPS server using it, which writes its port to `port`.
    struct TLSServer {
        let directory: String
        var certificate: String { directory + "/cert.pem" }
        let child: ChildProcess
        let port: Int

        static let script = """
            import http.server, os, ssl, sys
            class Answer(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    body = ("secure " + self.path).encode()
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                def log_message(self, *args):
                    pass
            server = http.server.HTTPServer(("127.0.0.1", 0), Answer)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[1], sys.argv[2])
            server.socket = context.wrap_socket(server.socket, server_side=True)
            with open(sys.argv[3] + ".tmp", "w") as f:
                f.write(str(server.server_address[1]))
            os.rename(sys.argv[3] + ".tmp", sys.argv[3])
            server.serve_forever()
            """

        static func start() async throws -> TLSServer {
            let directory = NSTemporaryDirectory() + "deadzone-tls-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let made = try await ChildProcess.run(
                "openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", directory + "/key.pem",
                            "-out", directory + "/cert.pem", "-days", "1", "-subj", "/CN=localhost",
                            "-addext", "subjectAltName=DNS:localhost"], timeout: .seconds(60))
            try #require(made.status == 0, "openssl could not make a certificate: \(made.stderr)")
            let child = try ChildProcess.spawn(
                "python3", ["-c", script, directory + "/cert.pem", directory + "/key.pem", directory + "/port"],
                stderr: .file(directory + "/stderr"))
            await eventually("the HTTPS server wrote its port") { FileManager.default.fileExists(atPath: directory + "/port") }
            let port = Int((try? String(contentsOfFile: directory + "/port", encoding: .utf8)) ?? "") ?? 0
            return TLSServer(directory: directory, child: child, port: port)
        }

        private init(directory: String, child: ChildProcess, port: Int) {
            self.directory = directory
            self.child = child
            self.port = port
        }

        func stop() async {
            child.send(SIGKILL)
            await child.exit()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Proxy settings from the environment must not bypass the proxy under test.
    static let noProxyOverride = ["no_proxy": "", "NO_PROXY": "", "http_proxy": "", "https_proxy": ""]

    @Test func clientsReachAnyHostOverHTTPAndHTTPSThroughTheInterface() async throws {
        let origin = try await OriginServer.start(
            configuration: OriginConfiguration(catalog: CatalogConfiguration(sizeScale: 0.01, largeVideoDuration: 60), threads: 1))
        let tls = try await TLSServer.start()
        let events = EventCollector()
        let slow = LinkDirectionParameters(delay: .milliseconds(300))
        let conditioner = try await LinkConditioner.start(
            configuration: ConditionerConfiguration(
                upstream: SocketAddress(host: "0.0.0.0", port: 0),
                listeners: [.wifi: SocketAddress(host: "127.0.0.18", port: 0), .cellular: SocketAddress(host: "127.0.0.19", port: 0)],
                profile: Profile(
                    name: "proxy", seed: 1, duration: .seconds(600),
                    initial: [.wifi: InterfaceSetup(state: .up, link: InterfaceLink(downlink: slow)),
                              .cellular: InterfaceSetup(state: .up, link: InterfaceLink())]),
                playTimeline: false, forwardProxy: true),
            sink: events)
        func stop() async {
            await conditioner.stop()
            try? await origin.stop()
            await tls.stop()
        }
        do {
            let proxy = "http://\(try #require(conditioner.endpoints[.wifi]))"
            func curl(_ arguments: [String]) async throws -> (ChildProcess.Outcome, Duration) {
                let started = ContinuousClock.now
                let outcome = try await ChildProcess.run(
                    "curl", ["-sS", "--max-time", "30", "--noproxy", "", "-x", proxy] + arguments, timeout: .seconds(60))
                return (outcome, ContinuousClock.now - started)
            }
            // Plain HTTP by two names in one curl: each request on its own connection, to its host.
            let (plain, plainTook) = try await curl(
                ["http://localhost:\(origin.port)/videos/clear/master.m3u8", "http://127.0.0.1:\(origin.port)/videos"])
            #expect(plain.status == 0 && plain.stdout.hasPrefix("#EXTM3U"), "\(plain.stderr)")
            #expect(plainTook >= .milliseconds(600), "two answers over the 300 ms link (took \(plainTook))")
            await eventually("both requests in the origin's log") { origin.requestLog.count >= 2 }
            #expect(origin.requestLog.map(\.path) == ["/videos/clear/master.m3u8", "/videos"], "in origin-form")

            // HTTPS through a CONNECT tunnel, the certificate checked by the client.
            let (secure, secureTook) = try await curl(["--cacert", tls.certificate, "https://localhost:\(tls.port)/hello"])
            #expect(secure.status == 0 && secure.stdout == "secure /hello", "\(secure.stdout) \(secure.stderr)")
            #expect(secureTook >= .milliseconds(600), "the 200, the handshake and the answer cross the link (took \(secureTook))")
            let urllib = """
                import ssl, sys, urllib.request
                context = ssl.create_default_context(cafile=sys.argv[2])
                proxies = urllib.request.ProxyHandler({"http": sys.argv[1], "https": sys.argv[1]})
                opener = urllib.request.build_opener(proxies, urllib.request.HTTPSHandler(context=context))
                sys.stdout.write(opener.open(sys.argv[3], timeout=30).read().decode())
                """
            let python = try await ChildProcess.run(
                "python3", ["-c", urllib, proxy, tls.certificate, "https://localhost:\(tls.port)/from-python"],
                timeout: .seconds(60), environment: Self.noProxyOverride)
            #expect(python.stdout == "secure /from-python", "\(python.stdout) \(python.stderr)")

            let asked = events.all.compactMap { event -> String? in
                switch event.kind {
                case let .requestForwarded(_, interface, target): "\(interface.rawValue) request \(target)"
                case let .tunnelOpened(_, interface, target): "\(interface.rawValue) tunnel \(target)"
                default: nil
                }
            }
            #expect(asked == ["wifi request localhost:\(origin.port)", "wifi request 127.0.0.1:\(origin.port)",
                              "wifi tunnel localhost:\(tls.port)", "wifi tunnel localhost:\(tls.port)"], "\(asked)")

            // Nothing listens there: 502 saying so. Not a proxy's request: 400 saying what to do.
            let (refused, _) = try await curl(["-v", "-p", "http://127.0.0.1:1/"])
            #expect(refused.status != 0 && refused.stderr.contains("502"), "\(refused.stderr)")
            let direct = try await ChildProcess.run(
                "curl", ["-sS", "--max-time", "30", "--noproxy", "*", "\(proxy)/videos"], timeout: .seconds(60))
            #expect(direct.stdout.contains("set it as the client's HTTP proxy"), "\(direct.stdout) \(direct.stderr)")
        } catch {
            await stop()
            throw error
        }
        await stop()
    }
}
