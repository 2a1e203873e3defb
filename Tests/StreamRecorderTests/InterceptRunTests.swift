import BenchCore
import Foundation
import Testing
import TestSupport

extension RecordedStreams {
    /// A run that judges an app fetching from its own origin: streams recorded from nginx are
    /// listed at their recorded URLs (`--intercept`), the Python engine fetches them from
    /// nginx through the conditioner's interfaces (CONNECT, answered by the intercepting
    /// proxy with a certificate of the run's CA), and the properties judge what passed
    /// through: the fixture origin served none of it.
    @Suite(.timeLimit(.minutes(5))) struct InterceptRunTests {
        @Test func thePythonEngineIsJudgedOnWhatItFetchedFromItsOwnOrigin() async throws {
            let scratch = try await RecordFromNginxTests.Scratch.start()
            do {
                let origin = scratch.origin
                let bench = try RecordCommandTests.bench()
                let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent().path
                let shapes = ["fmp4", "aes"]
                let recorded = try await ChildProcess.run(bench, ["record"] + shapes.map { "\($0)=\(origin.url("/\($0)/master.m3u8"))" }
                    + ["--out", scratch.catalog, "--ca", origin.caFile], timeout: .seconds(120))
                try #require(recorded.status == 0, "\(recorded.stderr)")
                let links = try scratch.cleanLinks()
                let files = try shapes.flatMap { ["--scenario-file", try scratch.wholeDownload($0, name: "live-\($0)")] }
                let before = origin.requests().count
                let out = scratch.root + "/run"
                let run = try await ChildProcess.run(bench, [
                    "--profile", links, "--catalog", scratch.catalog, "--https",
                    "--intercept", "127.0.0.1:\(origin.port)", "--upstream-ca", origin.caFile, "--time-limit", "120",
                    "--agent-listen", "127.0.0.1:0", "--launch", "exec python3 \(root)/examples/agents/python/agent.py",
                    "--out", out,
                ] + files, timeout: .seconds(240))
                #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
                let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/report.json")))
                    as? [String: Any]
                for scenario in report?["scenarios"] as? [[String: Any]] ?? [] {
                    let verdicts = scenario["verdicts"] as? [[String: Any]] ?? []
                    let integrity = verdicts.first { $0["property"] as? String == "integrity" }
                    #expect(integrity?["outcome"] as? String == "passed"
                        && (integrity?["summary"] as? String ?? "").contains("byte-identical"), "\(scenario["name"] ?? ""): \(integrity ?? [:])")
                }
                // What nginx answered is what the trace's origin log holds, with the host and the interface.
                let served = scratch.requests(since: before)
                let trace = try String(contentsOfFile: out + "/trace.jsonl", encoding: .utf8).split(separator: "\n").compactMap {
                    try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                }
                let origins = trace.filter { $0["source"] as? String == "origin" }.compactMap { $0["event"] as? [String: Any] }
                let live = origins.filter { $0["host"] as? String == "https://127.0.0.1:\(origin.port)" }
                #expect(!served.isEmpty && live.count == served.count, "nginx answered \(served.count), the trace has \(live.count) live")
                #expect(live.allSatisfy { $0["interface"] as? String == "wifi" && $0["bodySHA256"] != nil }, "\(live.prefix(3))")
                let paths = Set(live.compactMap { $0["path"] as? String })
                #expect(shapes.allSatisfy { shape in paths.contains("/\(shape)/master.m3u8") }, "\(paths)")
                // The fixture origin answered nothing of those streams itself.
                let own = origins.filter { record in
                    let path = record["path"] as? String ?? ""
                    return record["host"] == nil && shapes.contains { path.hasPrefix("/\($0)/") }
                }
                #expect(own.isEmpty, "the fixture origin answered \(own)")

                // The origin serves other bytes than were recorded: the run cannot judge against
                // the recording, and says so, rather than failing (or passing) the app.
                let segment = scratch.trees + "/fmp4/v0/seg1.m4s"
                let handle = try #require(FileHandle(forWritingAtPath: segment), "no \(segment) in the fMP4 tree")
                try handle.seekToEnd()
                try handle.write(contentsOf: Data("re-encoded".utf8))
                try handle.close()
                let stale = try await ChildProcess.run(bench, [
                    "--profile", links, "--catalog", scratch.catalog, "--https",
                    "--intercept", "127.0.0.1:\(origin.port)", "--upstream-ca", origin.caFile, "--time-limit", "120",
                    "--agent-listen", "127.0.0.1:0", "--launch", "exec python3 \(root)/examples/agents/python/agent.py",
                    "--out", scratch.root + "/stale", "--scenario-file", scratch.root + "/live-fmp4.yaml",
                ], timeout: .seconds(240))
                #expect(stale.status != 0, "\(stale.stdout)")
                #expect((stale.stdout + stale.stderr).contains("/fmp4/v0/seg1.m4s delivered")
                    && (stale.stdout + stale.stderr).contains("record it again"), "\(stale.stdout)\n\(stale.stderr)")
            } catch {
                await scratch.stop()
                throw error
            }
            await scratch.stop()
        }
    }
}
