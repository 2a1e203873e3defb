import BenchCore
import Foundation
import Testing
import TestSupport

extension RecordedStreams {
    /// `bench proxy --http-proxy --intercept` against a real third-party origin (nginx, over
    /// HTTPS with a CA of its own and plain HTTP): real clients (curl, ffmpeg) download
    /// through the conditioner's interfaces, and what they fetched is in the exchange log,
    /// each exchange with its interface and the hash of the body delivered; other hosts are
    /// blind tunnels, counted; an origin whose certificate is not trusted is a clear 502.
    @Suite(.timeLimit(.minutes(5))) struct InterceptTests {
        /// `bench proxy` running with interception, its output in a file.
        struct Proxy {
            let child: ChildProcess
            let out: String
            let log: String
            let wifi: String
            let cellular: String

            static func start(_ arguments: [String], in scratch: RecordFromNginxTests.Scratch) async throws -> Proxy {
                let profile = try scratch.cleanLinks(), root = scratch.root
                let out = root + "/proxy", log = root + "/proxy.log"
                let child = try ChildProcess.spawn(try RecordCommandTests.bench(), [
                    "proxy", "--profile", profile, "--http-proxy", "--out", out, "--duration", "forever",
                    "--wifi", "127.0.0.2:0", "--cellular", "127.0.0.3:0",
                ] + arguments, stdout: .file(log), stderr: .file(log + ".err"))
                let ready = await pollUntil(within: 60) {
                    ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("Ctrl-C stops") || !child.isRunning
                }
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                guard ready, child.isRunning else {
                    child.send(SIGKILL)
                    await child.exit()
                    Issue.record("bench proxy did not start: \(text) \((try? String(contentsOfFile: log + ".err", encoding: .utf8)) ?? "")")
                    throw CancellationError()
                }
                func endpoint(_ name: String) throws -> String {
                    let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(name + " 127.") })
                    return String(line.split(separator: " ")[1])
                }
                return Proxy(child: child, out: out, log: log, wifi: try endpoint("wifi"), cellular: try endpoint("cellular"))
            }

            /// Ctrl-C; its exit status and what it printed.
            func stop() async -> (status: Int32?, output: String) {
                child.send(SIGINT)
                let ended = await pollUntil(within: 30) { !child.isRunning }
                if !ended { child.send(SIGKILL) }
                let termination = await child.exit()
                var status: Int32?
                if case .exited(let code) = termination { status = code }
                return (status, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
            }

            /// `exchanges.jsonl`, one object a line.
            func exchanges() throws -> [[String: Any]] {
                try String(contentsOfFile: out + "/exchanges.jsonl", encoding: .utf8).split(separator: "\n").map {
                    try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
                }
            }

            func summary() throws -> [String: Any] {
                try #require(try JSONSerialization.jsonObject(
                    with: Data(contentsOf: URL(fileURLWithPath: out + "/interception.json"))) as? [String: Any])
            }
        }

        /// curl through the interface `proxy`; its status code, and the body in `file`.
        static func curl(_ url: URL, proxy: String, ca: String, file: String, range: String? = nil) async throws -> (code: String, stderr: String) {
            let result = try await ChildProcess.run("curl", [
                "-sS", "-o", file, "-w", "%{http_code}", "-x", "http://\(proxy)", "--cacert", ca, "--max-time", "60",
            ] + (range.map { ["-r", $0] } ?? []) + [url.absoluteString], timeout: .seconds(90))
            return (result.stdout, result.stderr)
        }

        @Test func curlAndFFmpegDownloadThroughItAndEveryExchangeIsEvidenceWithItsInterface() async throws {
            let scratch = try await RecordFromNginxTests.Scratch.start()
            let origin = scratch.origin
            let proxy: Proxy
            do {
                proxy = try await Proxy.start([
                    "--intercept", "127.0.0.1:\(origin.port)", "--intercept", "127.0.0.1:\(origin.plainPort)",
                    "--upstream-ca", origin.caFile,
                ], in: scratch)
            } catch {
                await scratch.stop()  // nginx and the scratch directory go with a proxy that did not start
                throw error
            }
            do {
                let ca = proxy.out + "/ca.pem"
                let body = scratch.root + "/body"
                func file(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: scratch.trees + path)) }

                let master = try await Self.curl(origin.url("/ts/master.m3u8"), proxy: proxy.wifi, ca: ca, file: body)
                #expect(master.code == "200", "\(master.stderr)")
                #expect(try Data(contentsOf: URL(fileURLWithPath: body)) == file("/ts/master.m3u8"))
                // A range through the other interface: nginx answers 206 with exactly those bytes.
                let ranged = try await Self.curl(
                    origin.url("/byterange/v0/all.ts"), proxy: proxy.cellular, ca: ca, file: body, range: "100-199")
                #expect(ranged.code == "206", "\(ranged.stderr)")
                let slice = try file("/byterange/v0/all.ts")[100..<200]
                #expect(try Data(contentsOf: URL(fileURLWithPath: body)) == slice)
                // Plain HTTP, absolute-form: recorded the same way.
                let plain = try await Self.curl(origin.plainURL("/aes/master.m3u8"), proxy: proxy.wifi, ca: ca, file: body)
                #expect(plain.code == "200", "\(plain.stderr)")

                // ffmpeg downloads a whole fMP4 stream through the WiFi interface (CONNECT for HTTPS).
                let before = origin.requests().count
                let ffmpeg = try await ChildProcess.run("ffmpeg", [
                    "-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-http_proxy", "http://\(proxy.wifi)",
                    "-i", origin.url("/fmp4/master.m3u8").absoluteString, "-map", "0", "-c", "copy", "-f", "mp4",
                    scratch.root + "/copy.mp4",
                ], timeout: .seconds(120))
                #expect(ffmpeg.status == 0, "ffmpeg through the interception: \(ffmpeg.stderr)")
                let fetchedByFFmpeg = scratch.requests(since: before)

                let (status, output) = await proxy.stop()
                #expect(status == 0, "\(output)")
                let exchanges = try proxy.exchanges()
                let first = try #require(exchanges.first { $0["path"] as? String == "/ts/master.m3u8" })
                #expect(first["interface"] as? String == "wifi" && first["status"] as? Int == 200)
                #expect(first["host"] as? String == "https://127.0.0.1:\(origin.port)")
                #expect(first["bodySHA256"] as? String == RecordFromNginxTests.sha256(try file("/ts/master.m3u8")))
                #expect(first["completed"] as? Bool == true)
                let range = try #require(exchanges.first { $0["range"] as? String == "bytes=100-199" })
                #expect(range["interface"] as? String == "cellular" && range["status"] as? Int == 206 && range["bytesSent"] as? Int == 100)
                #expect(range["bodySHA256"] as? String == RecordFromNginxTests.sha256(slice))
                #expect(exchanges.contains {
                    $0["host"] as? String == "http://127.0.0.1:\(origin.plainPort)" && $0["path"] as? String == "/aes/master.m3u8"
                        && $0["bodySHA256"] as? String == RecordFromNginxTests.sha256((try? file("/aes/master.m3u8")) ?? Data())
                }, "the plain-HTTP request is not in the evidence: \(exchanges)")
                // Every request nginx answered ffmpeg is in the evidence, through WiFi, with its status and size.
                let seen = exchanges.filter { ($0["path"] as? String ?? "").hasPrefix("/fmp4/") }.map {
                    "\($0["method"] ?? "") \($0["path"] ?? "") \($0["status"] ?? "") \($0["bytesSent"] ?? "") \($0["interface"] ?? "")"
                }
                #expect(!fetchedByFFmpeg.isEmpty && seen.sorted() == fetchedByFFmpeg.map { "\($0) wifi" }.sorted(),
                    "nginx answered \(fetchedByFFmpeg), the evidence says \(seen)")
                let summary = try proxy.summary()
                #expect(summary["exchanges"] as? Int == exchanges.count && (summary["blind"] as? [Any])?.isEmpty == true, "\(summary)")
            } catch {
                _ = await proxy.stop()
                await scratch.stop()
                throw error
            }
            await scratch.stop()
        }

        @Test func otherHostsAreBlindTunnelsCountedAndAnUntrustedOriginIsAClearError() async throws {
            let scratch = try await RecordFromNginxTests.Scratch.start()
            let origin = scratch.origin
            // No --upstream-ca: nginx's CA is not in the system's store.
            let proxy: Proxy
            do { proxy = try await Proxy.start(["--intercept", "127.0.0.1:\(origin.port)"], in: scratch) } catch {
                await scratch.stop()
                throw error
            }
            do {
                let body = scratch.root + "/body"
                let untrusted = try await Self.curl(origin.url("/ts/master.m3u8"), proxy: proxy.wifi, ca: proxy.out + "/ca.pem", file: body)
                #expect(untrusted.code == "502", "\(untrusted.stderr)")
                let said = (try? String(contentsOfFile: body, encoding: .utf8)) ?? ""
                #expect(said.contains("is not trusted") && said.contains("--upstream-ca"), "\(said)")
                // Another host name for the same server: not intercepted, a blind tunnel (nginx's own certificate).
                let blind = try await Self.curl(
                    URL(string: "https://localhost:\(origin.port)/ts/master.m3u8")!, proxy: proxy.wifi, ca: origin.caFile, file: body)
                #expect(blind.code == "200", "\(blind.stderr)")

                let (status, output) = await proxy.stop()
                #expect(status == 0, "\(output)")
                #expect(output.contains("not seen: 1 connection(s) to hosts not intercepted (blind tunnels): localhost:\(origin.port) ×1"),
                    "\(output)")
                let exchanges = try proxy.exchanges()
                #expect(exchanges.count == 1 && exchanges.first?["status"] as? Int == 502, "\(exchanges)")
                let why = exchanges.first?["upstreamError"] as? String
                #expect(why?.contains("is not trusted") == true, "\(exchanges)")
                let summary = try proxy.summary()
                #expect(summary["upstream_errors"] as? Int == 1, "\(summary)")
                let tunnels = summary["blind"] as? [[String: Any]] ?? []
                #expect(tunnels.count == 1 && tunnels.first?["target"] as? String == "localhost:\(origin.port)", "\(summary)")
            } catch {
                _ = await proxy.stop()
                await scratch.stop()
                throw error
            }
            await scratch.stop()
        }

        @Test func badInterceptionArgumentsAreRefusedSayingWhy() async throws {
            let bench = try RecordCommandTests.bench()
            let profile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Profiles/3g.yaml").path
            for (arguments, says) in [
                (["--upstream", "127.0.0.1:1", "--intercept", "cdn.example.com"], "--intercept needs --http-proxy"),
                (["--http-proxy", "--intercept", "cdn.example.com:99999"], "the port is not 1…65535"),
                (["--http-proxy", "--intercept", "::1"], "an IPv6 address needs brackets"),
                (["--http-proxy", "--upstream-ca", "/nonexistent.pem"], "--upstream-ca and --reuse-ca concern interception"),
                (["--http-proxy", "--intercept", "cdn.example.com", "--upstream-ca", "/nonexistent.pem"], "no readable file there"),
            ] {
                let refused = try await ChildProcess.run(
                    bench, ["proxy", "--profile", profile] + arguments, timeout: .seconds(60))
                #expect(refused.status == 2 && refused.stderr.contains(says), "\(arguments): \(refused.stderr)")
            }
        }
    }
}
