import BenchCore
import Foundation
import Testing
import TestSupport

/// The shipped scenarios played on a recording in place of a fixture video (`--video`),
/// one test at a time, beside `RecordedStreams` (each plays a few minutes of scenarios
/// that mostly wait on the links' real time).
@Suite(.serialized, .timeLimit(.minutes(8))) struct RecordedSuiteTests {
    /// A slow, clean WiFi (2 Mbit/s) on which the 3 MB `long/` recording takes about 12 s,
    /// so the scenarios' outages and faults find it in transfer: its path.
    static func slowLinks(in root: String) throws -> String {
        let path = root + "/slow-links.yaml"
        try """
            name: slow-links
            description: a slow clean WiFi, for a recording of a few MB
            duration: 5m
            interfaces:
              wifi: {downlink: {rate: 2Mbit/s, delay: 10ms}, uplink: {rate: 1Mbit/s, delay: 10ms}}
              cellular: {expensive: true, downlink: {rate: 1Mbit/s, delay: 30ms}, uplink: {rate: 1Mbit/s, delay: 30ms}}

            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `bench record` of nginx's `long/` tree, as `long`, into the scratch's catalog.
    static func recordLong(_ scratch: RecordedStreams.RecordFromNginxTests.Scratch, bench: String) async throws {
        let recorded = try await ChildProcess.run(bench, [
            "record", "long=\(scratch.origin.url("/long/master.m3u8"))", "--out", scratch.catalog, "--ca", scratch.origin.caFile,
        ], timeout: .seconds(120))
        try #require(recorded.status == 0, "\(recorded.stderr)")
    }

    static var root: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    static func json(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any],
            "\(path) is not a JSON object")
    }

    /// The origin's records (the fixture origin's and the intercepting proxy's) of a trace file.
    static func originRecords(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }.filter { $0["source"] as? String == "origin" }.compactMap { $0["event"] as? [String: Any] }
    }

    /// Each verdict's outcome in `report`'s scenario `name`, by property.
    static func outcomes(_ report: [String: Any], scenario name: String) -> [String: String] {
        let scenario = (report["scenarios"] as? [[String: Any]] ?? []).first { $0["name"] as? String == name }
        var outcomes: [String: String] = [:]
        for verdict in scenario?["verdicts"] as? [[String: Any]] ?? [] {
            if let property = verdict["property"] as? String { outcomes[property] = verdict["outcome"] as? String }
        }
        return outcomes
    }

    /// The shipped `origin-faults` and `auto-suspend-on-disconnect` with `clear` played by a
    /// recording the fixture origin serves (`bench --video`): Deadzone's engine passes both,
    /// the faults on the clear video's files hitting the recording's and the download judged
    /// byte-identical to it; its `fail-on-outage` variant, played at the same time, is caught
    /// on `auto-suspend-on-disconnect`. The shipped suite checks as carried over; what cannot
    /// be carried over is refused before anything plays.
    @Test func theShippedScenariosPlayOnARecordingInPlaceOfAFixture() async throws {
        let scratch = try await RecordedStreams.RecordFromNginxTests.Scratch.start(long: true)
        do {
            let bench = try RecordedStreams.RecordCommandTests.bench()
            try await Self.recordLong(scratch, bench: bench)
            let links = try Self.slowLinks(in: scratch.root)
            let (out, caught) = (scratch.root + "/run", scratch.root + "/variant")
            // A spare request of `large`, which `--video large=long` plays on the recording too.
            let spare = try scratch.wholeDownload("large", name: "spare", spare: true)
            let common = ["--profile", links, "--catalog", scratch.catalog, "--video", "clear=long", "--time-limit", "150"]
            async let passing = ChildProcess.run(bench, common + [
                "--scenario", "origin-faults", "--scenario", "auto-suspend-on-disconnect", "--out", out,
            ], directory: Self.root, timeout: .seconds(300))
            async let spared = ChildProcess.run(bench, [
                "--profile", links, "--catalog", scratch.catalog, "--video", "large=long", "--scenario-file", spare,
                "--time-limit", "150", "--out", scratch.root + "/spare",
            ], directory: Self.root, timeout: .seconds(300))
            async let failing = ChildProcess.run(bench, common + [
                "--agent", "fail-on-outage", "--scenario", "auto-suspend-on-disconnect", "--out", caught,
            ], directory: Self.root, timeout: .seconds(300))
            let (run, variant, spareRun) = try await (passing, failing, spared)
            #expect(spareRun.status == 0, "\(spareRun.stdout)\n\(spareRun.stderr)")
            let spareTrace = try String(contentsOfFile: scratch.root + "/spare/trace.jsonl", encoding: .utf8)
            #expect(spareTrace.contains("\"video\":\"long\"") && spareTrace.contains("/long/v0/seg"),
                "the spare request of large did not download the recording")
            #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
            #expect(run.stdout.contains("on recordings: clear=long"), "\(run.stdout)")
            let report = try Self.json(out + "/report.json")
            #expect((report["run"] as? [String: Any])?["videos"] as? [String: String] == ["clear": "long"])
            let faults = Self.outcomes(report, scenario: "origin-faults")
            #expect(faults["integrity"] == "passed" && faults["liveness"] == "passed", "\(faults)")
            let outage = Self.outcomes(report, scenario: "auto-suspend-on-disconnect")
            #expect(outage["auto-suspend-on-disconnect"] == "passed" && outage["integrity"] == "passed", "\(outage)")
            #expect(variant.status == 1, "\(variant.stdout)\n\(variant.stderr)")
            let missed = Self.outcomes(try Self.json(caught + "/report.json"), scenario: "auto-suspend-on-disconnect")
            #expect(missed["auto-suspend-on-disconnect"] == "failed", "the variant was not caught: \(missed)")
            let records = try Self.originRecords(out + "/trace.jsonl")
            let paths = records.compactMap { $0["path"] as? String }
            #expect(paths.contains("/long/master.m3u8") && paths.contains { $0.hasPrefix("/long/v0/seg") }, "\(paths)")
            #expect(!paths.contains { $0.hasPrefix("/videos/clear/") }, "the fixture clear was asked for: \(paths)")
            let faulted = records.filter { $0["faultRuleID"] != nil }.compactMap { $0["path"] as? String }
            #expect(faulted.contains { $0.hasPrefix("/long/") }, "no fault hit the recording: \(faulted)")
            #expect(faulted.contains { $0.hasPrefix("/videos/http-key/") }, "the fixture http-key is still faulted: \(faulted)")
            let trace = try String(contentsOfFile: out + "/trace.jsonl", encoding: .utf8)
            #expect(trace.contains("--video: clear is the recorded stream long"))

            // The whole shipped suite carries over to this recording (as clear, large or http-key's stand-in).
            let shipped = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/Scenarios")
                .filter { $0.hasSuffix(".yaml") }.sorted().map { Self.root + "/Scenarios/" + $0 }
            let check = try await ChildProcess.run(bench, [
                "scenario", "check", "--catalog", scratch.catalog, "--video", "clear=long",
            ] + shipped, timeout: .seconds(60))
            #expect(check.status == 0 && check.stdout.components(separatedBy: "(on recordings: clear=long)").count
                == shipped.count + 1, "\(check.stdout)\n\(check.stderr)")

            // What cannot be carried over is refused before anything plays, saying why.
            let odd = scratch.root + "/odd.yaml"
            try """
                name: odd
                summary: waits for one rung of the clear video's ladder.
                steps:
                  - up: wifi
                  - launch
                  - request: clear
                  - wait-for-request: /videos/clear/400k/*.ts

                """.write(toFile: odd, atomically: true, encoding: .utf8)
            let refusals: [([String], String)] = [
                (["--scenario-file", odd, "--video", "clear=long"], "\(odd) (odd), step 4"),
                (["--scenario", "origin-faults", "--video", "protected=long"], "sample-aes"),
                (["--scenario", "origin-faults", "--video", "clear=nothing"], "the recorded streams are long"),
            ]
            for (arguments, expected) in refusals {
                let refused = try await ChildProcess.run(bench, [
                    "--profile", links, "--catalog", scratch.catalog, "--out", scratch.root + "/refused",
                ] + arguments, directory: Self.root, timeout: .seconds(60))
                #expect(refused.status == 2 && refused.stderr.contains(expected), "\(arguments): \(refused.stderr)")
            }
            let gate = try await ChildProcess.run(bench, [
                "gate", "--catalog", scratch.catalog, "--video", "clear=long", "--baseline", Self.root + "/Reports/baseline.json",
            ], directory: Self.root, timeout: .seconds(60))
            #expect(gate.status == 2 && gate.stderr.contains("bench run --catalog DIR --video"), "\(gate.stderr)")
        } catch {
            await scratch.stop()
            throw error
        }
        await scratch.stop()
    }

    /// `bench matrix` and `bench chaos` over HTTPS, intercepting nginx, with the Python
    /// engine (Deadzone's own fetches only the fixture origin: it does not use an interface's
    /// proxy): the recording stands for `clear` and is fetched live from nginx through the
    /// intercepting proxy; the engine passes `auto-suspend-on-disconnect` on it, and a chaos
    /// seed that requests `clear` fetches it live too.
    @Test func matrixAndChaosJudgeAnAppFetchingARecordingLiveThroughTheInterception() async throws {
        let scratch = try await RecordedStreams.RecordFromNginxTests.Scratch.start(long: true)
        do {
            let origin = scratch.origin
            let bench = try RecordedStreams.RecordCommandTests.bench()
            try await Self.recordLong(scratch, bench: bench)
            let links = try Self.slowLinks(in: scratch.root)
            let live = ["--catalog", scratch.catalog, "--video", "clear=long", "--https", "--intercept",
                        "127.0.0.1:\(origin.port)", "--upstream-ca", origin.caFile]
            let out = scratch.root + "/matrix"
            let matrix = try await ChildProcess.run(bench, [
                "matrix", "--agent", "python", "--scenario", "auto-suspend-on-disconnect", "--profile", links,
                "--time-limit", "150", "--out", out,
            ] + live, directory: Self.root, timeout: .seconds(300))
            #expect(matrix.status == 0, "\(matrix.stdout)\n\(matrix.stderr)")
            #expect(FileManager.default.fileExists(atPath: out + "/ca.pem"), "no ca.pem in the matrix's directory")
            let passing = try Self.json(out + "/python--slow-links/report.json")
            let run = passing["run"] as? [String: Any]
            #expect(run?["videos"] as? [String: String] == ["clear": "long"] && run?["https"] as? Bool == true, "\(run ?? [:])")
            let good = Self.outcomes(passing, scenario: "auto-suspend-on-disconnect")
            #expect(good["auto-suspend-on-disconnect"] == "passed" && good["integrity"] == "passed", "\(good)")
            // What nginx answered is in the evidence, with its host and interface; the fixture
            // origin served neither the recording nor the clear fixture.
            let records = try Self.originRecords(out + "/python--slow-links/trace.jsonl")
            let host = "https://127.0.0.1:\(origin.port)"
            let fetched = records.filter { $0["host"] as? String == host }
            #expect(fetched.contains { ($0["path"] as? String ?? "").hasPrefix("/long/v0/seg") }, "\(fetched.prefix(3))")
            #expect(fetched.allSatisfy { $0["interface"] as? String == "wifi" && $0["bodySHA256"] != nil }, "\(fetched.prefix(3))")
            let own = records.filter { $0["host"] == nil }.compactMap { $0["path"] as? String }
            #expect(!own.contains { $0.hasPrefix("/long/") || $0.hasPrefix("/videos/clear/") }, "\(own)")

            // A chaos seed whose scenario requests clear (seed 3's does), over the same interception.
            let chaosOut = scratch.root + "/chaos"
            let chaos = try await ChildProcess.run(bench, [
                "chaos", "--seeds", "3", "--agent", "python", "--profile", links, "--shrink-runs", "0", "--out", chaosOut,
            ] + live, directory: Self.root, timeout: .seconds(300))
            let file = try String(contentsOfFile: chaosOut + "/seed-3.yaml", encoding: .utf8)
            try #require(file.contains("request: clear"), "seed 3 no longer requests clear; pick a seed that does:\n\(file)")
            #expect(chaos.status == 0, "\(chaos.stdout)\n\(chaos.stderr)")
            #expect(chaos.stdout.contains("--video clear=long") && chaos.stdout.contains("--https"), "\(chaos.stdout)")
            #expect(FileManager.default.fileExists(atPath: chaosOut + "/ca.pem"), "no ca.pem in the campaign's directory")
            let chaosRecords = try Self.originRecords(chaosOut + "/seed-3/trace.jsonl")
            #expect(chaosRecords.contains { $0["host"] as? String == host && ($0["path"] as? String ?? "").hasPrefix("/long/") },
                "the chaos input did not fetch the recording live")
        } catch {
            await scratch.stop()
            throw error
        }
        await scratch.stop()
    }
}
