import AppProtocol
import BenchCore
import Foundation
@testable import ResilienceHarness
import TestSupport
import Testing

/// `--https` inside the harness: the scenario's network serves TLS with a certificate of
/// the run's CA, which `ca.pem` verifies through an interface's endpoint (and the origin
/// still attributes the request to it), the URLs given to the app are https://, and the
/// app's hello carries `caFile` (and its launch `DEADZONE_CA_FILE`) only when HTTPS is on.
@Suite(.timeLimit(.minutes(3))) struct HarnessHTTPSTests {
    /// A directory of the test's own, removed by `remove`.
    static func scratch() throws -> String {
        let directory = NSTemporaryDirectory() + "deadzone-https-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    static let profile = Profile(
        name: "https", seed: 1, duration: .seconds(600),
        initial: [.wifi: InterfaceSetup(state: .up, link: InterfaceLink()),
                  .cellular: InterfaceSetup(state: .up, link: InterfaceLink(isExpensive: true))])

    @Test func theScenariosOriginServesTLSThatCaPemVerifiesThroughAnInterface() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let https = try HarnessHTTPS.make(writingCAInto: directory)
        #expect(https.caFile == directory + "/ca.pem")
        let network = try await ScenarioNetwork.start(
            profile: Self.profile, focus: .wifi, targetSeconds: 2, seed: 1, collector: TraceCollector().scenario("https"),
            interfacesStart: .asProfile, tls: https.authority)
        do {
            let (_, catalogURL) = try #require(network.document("protected"))
            #expect(catalogURL == "https://127.0.0.1:\(network.origin.port)/videos/protected")
            let wifi = try #require(network.conditioner.endpoints[.wifi])
            // As an engine does: TCP to the interface's endpoint, TLS for the URL's host.
            let connectTo = "127.0.0.1:\(network.origin.port):\(wifi.host):\(wifi.port)"
            let url = catalogURL + "/master.m3u8"
            let trusted = try await ChildProcess.run(
                "curl", ["-sS", "--max-time", "30", "--noproxy", "*", "--connect-to", connectTo, "--cacert", https.caFile, url],
                timeout: .seconds(60))
            #expect(trusted.status == 0 && trusted.stdout.hasPrefix("#EXTM3U"), "\(trusted.stderr)")
            await eventually("the request in the origin's log") { !network.origin.requestLog.isEmpty }
            #expect(network.origin.requestLog.map(\.interface) == [wifi.description], "\(network.origin.requestLog)")
            let untrusted = try await ChildProcess.run(
                "curl", ["-sS", "--max-time", "30", "--noproxy", "*", "--connect-to", connectTo, url], timeout: .seconds(60))
            #expect(untrusted.status == 60, "without ca.pem curl does not trust the origin: \(untrusted.stderr)")
        } catch {
            await network.stop()
            throw error
        }
        await network.stop()
    }

    /// A client that opens a TLS connection through the interface's endpoint, writes
    /// `open` once its handshake is done, and sends its request only once `go` exists: as
    /// an HTTP client's pool opens a connection ahead and uses it later.
    static let aheadClient = #"""
        import os, socket, ssl, sys, time
        directory, host, port, path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
        context = ssl.create_default_context(cafile=directory + "/ca.pem")
        with socket.create_connection((host, port)) as raw:
            with context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
                open(directory + "/open", "w").close()
                while not os.path.exists(directory + "/go"):
                    time.sleep(0.01)
                tls.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
                answer = b""
                while chunk := tls.recv(65536):
                    answer += chunk
                print(answer.split(b"\r\n", 1)[0].decode())
        """#

    /// The conditioner stamps when the app began a request (`appSent`), the judge's
    /// evidence of when it asked. On TLS the handshake's flights are not a request: a
    /// connection opened ahead carries its request stamped when it was sent, not when
    /// the handshake ended (a CI run failed an honest engine on that, its segment
    /// request "sent" before the license it had waited for).
    @Test func aRequestOnAConnectionOpenedAheadIsStampedWhenSentNotAtTheHandshake() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let https = try HarnessHTTPS.make(writingCAInto: directory)
        let collector = TraceCollector().scenario("https")
        let network = try await ScenarioNetwork.start(
            profile: Self.profile, focus: .wifi, targetSeconds: 2, seed: 1, collector: collector,
            interfacesStart: .asProfile, tls: https.authority)
        do {
            let wifi = try #require(network.conditioner.endpoints[.wifi])
            let script = directory + "/ahead.py"
            try Self.aheadClient.write(toFile: script, atomically: true, encoding: .utf8)
            let path = "/videos/protected/master.m3u8"
            let client = Task {
                try await ChildProcess.run(
                    "python3", [script, directory, wifi.host, String(wifi.port), path], timeout: .seconds(90))
            }
            #expect(await eventually("the client's handshake", within: 90) {
                FileManager.default.fileExists(atPath: directory + "/open")
            })
            let opened = collector.now
            FileManager.default.createFile(atPath: directory + "/go", contents: nil)
            let outcome = try await client.value
            #expect(outcome.status == 0 && outcome.stdout.hasPrefix("HTTP/1.1 200"), "\(outcome.stderr)")
            await eventually("the request in the origin's log") { !network.origin.requestLog.isEmpty }
            let sends = collector.entries.filter { if case .conditioner(.appSent) = $0.event { true } else { false } }
            // One request, one stamp, taken after the handshake was done.
            #expect(sends.count == 1, "\(sends)")
            #expect(sends.allSatisfy { $0.t >= opened }, "handshake done at \(opened), stamps \(sends.map(\.t))")
        } catch {
            await network.stop()
            throw error
        }
        await network.stop()
    }

    @Test func overPlainHTTPTheURLsStayHTTP() async throws {
        let network = try await ScenarioNetwork.start(
            profile: Self.profile, focus: .wifi, targetSeconds: 2, seed: 1, collector: TraceCollector().scenario("http"),
            interfacesStart: .asProfile)
        let catalogURL = network.document("clear")?.1
        await network.stop()
        #expect(catalogURL?.hasPrefix("http://127.0.0.1:") == true, "\(catalogURL ?? "-")")
    }

    /// An app that records its hello line and `DEADZONE_CA_FILE`, then answers hello.
    static let recorder = #"""
        import json, os, sys
        line = sys.stdin.readline()
        hello = json.loads(line)
        with open(sys.argv[1], "w") as f:
            json.dump({"hello": hello, "env": os.environ.get("DEADZONE_CA_FILE")}, f)
        print(json.dumps({"type": "reply", "id": hello["id"], "protocol": 1, "app": "recorder", "capabilities": []}), flush=True)
        sys.stdin.read()
        """#

    @Test func helloCarriesCaFileOnlyWhenTheRunServesHTTPS() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let script = directory + "/recorder.py"
        try Self.recorder.write(toFile: script, atomically: true, encoding: .utf8)
        var options = HarnessOptions(
            profile: Self.profile, profilePath: "https.yaml", seed: 1, app: AppCommandLine(executable: "python3", arguments: [script]))
        for https in [false, true] {
            options.https = https ? try HarnessHTTPS.make(writingCAInto: directory) : nil
            let record = directory + "/hello-\(https).json"
            var launch = options.appLaunch
            launch.command.arguments.append(record)
            let app = try await AgentProcess.launch(launch, storage: directory + "/storage", after: .clean) { _, _ in }
            try? await app.kill()
            let recorded = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: record))) as? [String: Any])
            let hello = try #require(recorded["hello"] as? [String: Any])
            if https {
                #expect(hello["caFile"] as? String == directory + "/ca.pem", "\(hello)")
                #expect(recorded["env"] as? String == directory + "/ca.pem", "\(recorded)")
            } else {
                #expect(hello["caFile"] == nil, "\(hello)")
                #expect(recorded["env"] is NSNull, "\(recorded)")
            }
            // The line the harness wrote is one the schema allows.
            let line = try AppWire.line(AppRequest(id: 1, command: .hello(
                protocol: 1, storage: "/s", after: .clean, caFile: hello["caFile"] as? String)))
            #expect(try AppWire.decode(AppRequest.self, from: String(decoding: line, as: UTF8.self)).command
                == .hello(protocol: 1, storage: "/s", after: .clean, caFile: hello["caFile"] as? String))
        }
    }
}
