import ClientComparison
import Foundation
import ResilienceHarness
import Testing

/// `bench compare` from the command line: bad input exits 2 saying what to do, and a
/// small comparison writes its report family.
@Suite(.timeLimit(.minutes(5))) struct BenchCompareCommandTests {
    func temporaryFile(_ text: String, suffix: String) throws -> String {
        let path = NSTemporaryDirectory() + "deadzone-\(UUID().uuidString)\(suffix)"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(arguments: [
        (["compare"], "--profile is required"),
        (["compare", "--profile", "Profiles/none.yaml", "--clients", "no-such-client"], "unknown client"),
        (["compare", "--profile", "Profiles/none.yaml", "--modes", "clean,sideways"], "unknown fault mode \"sideways\""),
        (["compare", "--profile", "Profiles/none.yaml", "--client", "mine"], "NAME='COMMAND'"),
        (["compare", "--profile", "Profiles/none.yaml", "--client", "mine=mine {url}"], "{output}"),
        (["compare", "--profile", "/nonexistent/profile.yaml", "--clients", "deadzone", "--modes", "clean"], "/nonexistent/profile.yaml"),
        (["compare", "--profile", "Profiles/none.yaml", "--time-limit", "-1"], "--time-limit"),
        (["compare", "--profile", "Profiles/none.yaml", "--no-such-option"], "no-such-option"),
        (["compare", "--profile", "Profiles/none.yaml", "--expect", "ffmpeg:clean"], "CLIENT:MODE=OUTCOME"),
    ])
    func badInputExits2SayingWhatToDo(arguments: [String], expected: String) async throws {
        let outcome = try await runBench(arguments)
        #expect(outcome.status == 2, "\(outcome.output)")
        #expect(outcome.output.contains(expected), "\(outcome.output)")
    }

    @Test func aNamedClientThatIsNotInstalledSaysHowToInstallIt() async throws {
        let file = try temporaryFile(
            "clients:\n  exotic:\n    command: exotic-dl {url} -o {output}\n    requires: [deadzone-exotic-dl]\n    install: pip install exotic-dl\n",
            suffix: ".yaml")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let outcome = try await runBench(["compare", "--profile", "Profiles/none.yaml", "--clients-file", file, "--clients", "exotic"])
        #expect(outcome.status == 2)
        #expect(outcome.output.contains("deadzone-exotic-dl") && outcome.output.contains("pip install exotic-dl"), "\(outcome.output)")
    }

    @Test func aBrokenClientFileNamesItsLine() async throws {
        let file = try temporaryFile("clients:\n  mine:\n    command: mine {url} {output}\n    colour: red\n", suffix: ".yaml")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let outcome = try await runBench(["compare", "--profile", "Profiles/none.yaml", "--clients-file", file])
        #expect(outcome.status == 2)
        #expect(outcome.output.contains("\(file):4") && outcome.output.contains("colour"), "\(outcome.output)")
    }

    @Test func listShowsEveryClientWithItsStatusAndEveryMode() async throws {
        let outcome = try await runBench(["compare", "--list"])
        #expect(outcome.status == 0)
        for client in BuiltInClients.all { #expect(outcome.output.contains(client.name)) }
        for mode in FaultMode.allCases { #expect(outcome.output.contains(mode.rawValue)) }
    }

    @Test func aSmallComparisonWritesItsReportsAndPrintsJSON() async throws {
        let profile = try temporaryFile("name: compare-test\nduration: 1m\ninterfaces:\n  wifi:\n    downlink: {rate: 4Mbit/s}\n", suffix: ".yaml")
        let clients = try temporaryFile(
            "clients:\n  catter:\n    command: sh -c 'exit 0' {url} > {output}\n    validate: bytes\n", suffix: ".yaml")
        let out = NSTemporaryDirectory() + "deadzone-compare-cli-\(UUID().uuidString)"
        defer {
            for path in [profile, clients, out] { try? FileManager.default.removeItem(atPath: path) }
        }
        let outcome = try await runBench([
            "compare", "--profile", profile, "--clients-file", clients, "--clients", "catter", "--modes", "clean",
            "--media", "synthetic", "--video-seconds", "4", "--target-seconds", "1", "--time-limit", "30", "--out", out, "--json",
        ])
        #expect(outcome.status == 0, "\(outcome.output)")
        for file in ["report.json", "report.html", "junit.xml", "trace.jsonl"] {
            #expect(FileManager.default.fileExists(atPath: "\(out)/\(file)"), "\(file) missing")
        }
        let json = try Data(contentsOf: URL(fileURLWithPath: "\(out)/report.json"))
        let report = try JSONDecoder.iso8601.decode(ComparisonReport.self, from: json)
        // The client writes an empty file and exits 0: silent data loss.
        #expect(report.runs.map(\.outcome) == [.silentDataLoss])
        #expect(outcome.output.contains("\"kind\" : \"comparison\""), "--json prints the report on stdout")
        let again = try await runBench(["report", out])
        #expect(again.status == 0, "\(again.output)")
        // The same comparison with an expectation it breaks fails, saying which.
        let expecting = try await runBench([
            "compare", "--profile", profile, "--clients-file", clients, "--clients", "catter", "--modes", "clean",
            "--media", "synthetic", "--video-seconds", "4", "--target-seconds", "1", "--out", out, "--expect", "catter:clean=ok",
        ])
        #expect(expecting.status == 1, "\(expecting.output)")
        #expect(expecting.output.contains("FAIL catter:clean=ok: catter × clean came out silent-data-loss"), "\(expecting.output)")
    }
}

extension BenchCompareCommandTests {
    @Test func deadzonesEngineAsABlackBoxSurvivesAnOutageAndResumesAfterAKill() async throws {
        let profile = try temporaryFile("name: compare-engine\nduration: 1m\ninterfaces:\n  wifi:\n    downlink: {rate: 4Mbit/s}\n", suffix: ".yaml")
        let out = NSTemporaryDirectory() + "deadzone-compare-engine-\(UUID().uuidString)"
        defer {
            for path in [profile, out] { try? FileManager.default.removeItem(atPath: path) }
        }
        let outcome = try await runBench([
            "compare", "--profile", profile, "--clients", "deadzone", "--modes", "reset-window,kill-rerun", "--media", "synthetic",
            "--video-seconds", "12", "--segment-seconds", "1", "--target-seconds", "8", "--time-limit", "120", "--out", out,
        ])
        #expect(outcome.status == 0, "\(outcome.output)")
        let report = try JSONDecoder.iso8601.decode(ComparisonReport.self, from: Data(contentsOf: URL(fileURLWithPath: "\(out)/report.json")))
        let window = try #require(report.run(client: "deadzone", mode: .resetWindow))
        #expect(window.outcome == .ok, "\(window)")
        #expect(window.output?.method == "bytes" && window.output?.valid == true)
        let rerun = try #require(report.run(client: "deadzone", mode: .killRerun))
        #expect(rerun.outcome == .ok, "\(rerun)")
        #expect(rerun.attempts.count == 2)
        #expect(rerun.metrics?.resumed == true, "the engine started over after the kill: \(rerun.metrics.map { "\($0)" } ?? "")")
    }
}

extension JSONDecoder {
    static var iso8601: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
