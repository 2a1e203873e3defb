import BenchCore
import Foundation
import StreamRecorder
import Testing
import TestSupport

extension RecordedStreams {
    /// The three engines of this repository judged on recorded streams under flaky-wifi:
    /// Deadzone's engine, the Python engine and the Swift-kit example each download the six
    /// recorded shapes (every scenario naming a recorded video), and each passes, integrity
    /// compared on the recording's bytes.
    @Suite(.timeLimit(.minutes(6))) struct RecordedEnginesTests {
        static let shapes = ["ts", "fmp4", "byterange", "aes", "audio-subs", "discontinuity"]

        /// How `bench` starts each engine: a builtin agent, or a launch command over `--agent-listen`.
        static func launch(_ engine: String, root: String, bench: String) -> [String] {
            switch engine {
            case "python": ["--agent-listen", "127.0.0.1:0", "--launch", "exec python3 \(root)/examples/agents/python/agent.py"]
            case "urlsession":
                ["--agent-listen", "127.0.0.1:0", "--launch",
                 "exec \((bench as NSString).deletingLastPathComponent)/deadzone-urlsession-example"]
            default: ["--agent", engine]
            }
        }

        @Test(arguments: ["deadzone", "python", "urlsession"])
        func eachEnginePassesOnRecordedStreamsUnderFlakyWiFi(engine: String) async throws {
            let scratch = try await RecordFromNginxTests.Scratch.start()
            do {
                let bench = try RecordCommandTests.bench()
                let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent().path
                if engine == "urlsession" {
                    let example = (bench as NSString).deletingLastPathComponent + "/deadzone-urlsession-example"
                    try #require(FileManager.default.isExecutableFile(atPath: example),
                        "no \(example): `swift build --build-tests` builds it (the package's deadzone-urlsession-example product)")
                }
                _ = try await scratch.recorder().record(
                    Self.shapes.map { StreamRecorder.Request(id: $0, url: scratch.origin.url("/\($0)/master.m3u8")) })
                let files = try Self.shapes.flatMap { ["--scenario-file", try scratch.wholeDownload($0, name: "recorded-\($0)")] }
                let out = scratch.root + "/run"
                let run = try await ChildProcess.run(bench, [
                    "--profile", root + "/Profiles/flaky-wifi.yaml", "--catalog", scratch.catalog, "--time-limit", "150",
                    "--out", out,
                ] + Self.launch(engine, root: root, bench: bench) + files, timeout: .seconds(300))
                #expect(run.status == 0, "\(engine): \(run.stdout)\n\(run.stderr)")
                let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/report.json")))
                    as? [String: Any]
                let scenarios = report?["scenarios"] as? [[String: Any]] ?? []
                #expect(scenarios.count == Self.shapes.count, "\(engine): \(scenarios.count) scenarios in the report")
                for scenario in scenarios {
                    let verdicts = scenario["verdicts"] as? [[String: Any]] ?? []
                    let integrity = verdicts.first { $0["property"] as? String == "integrity" }
                    #expect(integrity?["outcome"] as? String == "passed"
                        && (integrity?["summary"] as? String ?? "").contains("byte-identical"),
                        "\(engine), \(scenario["name"] ?? ""): \(integrity ?? [:])")
                }
            } catch {
                await scratch.stop()
                throw error
            }
            await scratch.stop()
        }
    }
}
