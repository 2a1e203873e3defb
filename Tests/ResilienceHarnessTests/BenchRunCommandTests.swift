import Foundation
import ResilienceHarness
import Testing

/// The real `bench` executable, as a user or a CI script runs it: what goes to stdout
/// and stderr, the files, the exit status, and the gate. Each test runs one short
/// scenario over real sockets (clean loopback links), so the suite is serialized.
@Suite(.serialized, .timeLimit(.minutes(5))) struct BenchRunCommandTests {
    /// A scratch directory to run `bench` in (its own `Reports/`, the shipped
    /// `Scenarios/` linked in as in a checkout), with the test profile.
    struct Scratch {
        let root: String
        var profile: String { root + "/cli-test.yaml" }
        var out: String { root + "/out" }

        init() throws {
            root = NSTemporaryDirectory() + "deadzone-cli-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: root + "/Reports", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: root + "/Scenarios", withDestinationPath: ShippedScenarios.directory)
            try """
                name: cli-test
                description: clean fast links for the command-line tests
                duration: 1m
                interfaces:
                  wifi:
                    downlink: {rate: 16Mbit/s, delay: 2ms}
                    uplink: {rate: 8Mbit/s, delay: 2ms}
                  cellular:
                    expensive: true
                    downlink: {rate: 8Mbit/s, delay: 5ms}
                    uplink: {rate: 4Mbit/s, delay: 5ms}
                """.write(toFile: profile, atomically: true, encoding: .utf8)
        }

        /// Writes `Reports/baseline.json` (the default `bench run` looks for) or `path`.
        func writeBaseline(_ baseline: Baseline, to path: String? = nil) throws {
            try baseline.write(to: URL(fileURLWithPath: path ?? root + "/Reports/baseline.json"))
        }

        func text(_ name: String) -> String {
            String(decoding: FileManager.default.contents(atPath: out + "/" + name) ?? Data(), as: UTF8.self)
        }

        func remove() { try? FileManager.default.removeItem(atPath: root) }
    }

    static func decodeReport(_ text: String) throws -> RunReport {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try decoder.decode(RunReport.self, from: Data(text.utf8))
    }

    @Test func aJSONRunPrintsOneReportOnStdoutWritesItsFilesAndReRenders() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // The default baseline, made with this profile: the page compares with it.
        try scratch.writeBaseline(Baseline(profile: "cli-test", scenarios: [
            "housekeeping": ["time_to_complete_s": MetricBaseline(value: 999, tolerance: 0.25, direction: .lowerIsBetter)]
        ]))
        let run = try await runBench(
            ["--profile", scratch.profile, "--scenario", "housekeeping", "--json", "--out", scratch.out], in: scratch.root)
        #expect(run.status == 0, "\(run.output)")
        // stdout is exactly one JSON report; progress went to stderr.
        let report = try Self.decodeReport(run.stdout)
        #expect(report.scenarios.map(\.name) == ["housekeeping"])
        #expect(report.passed, "\(report.scenarios.flatMap(\.verdicts).filter(\.failed))")
        #expect(run.stderr.contains("[1/1] housekeeping") && run.stderr.contains("PASS"), "\(run.stderr)")
        #expect(!run.stdout.contains("[1/1]") && !run.stdout.contains("report:"))
        for file in ["report.json", "report.html", "junit.xml", "trace.jsonl"] {
            #expect(FileManager.default.fileExists(atPath: scratch.out + "/" + file), "\(file) missing")
        }
        #expect(try Self.decodeReport(scratch.text("report.json")).scenarios.map(\.verdicts) == report.scenarios.map(\.verdicts))
        let html = scratch.text("report.html")
        #expect(html.contains("Compared with the default baseline Reports/baseline.json, made with profile cli-test."))
        #expect(html.contains("<td>time_to_complete_s</td><td class=\"num\">999</td>"), "no baseline column")

        // `bench report DIR` renders the page again from the files, with the same verdicts.
        let rows = html.components(separatedBy: " class=\"verdict ").dropFirst().map { $0.prefix(while: { $0 != "<" }) }
        try FileManager.default.removeItem(atPath: scratch.out + "/report.html")
        let again = try await runBench(["report", scratch.out])
        #expect(again.status == 0, "\(again.output)")
        #expect(again.stdout.contains("report: \(scratch.out)/report.html"))
        let rerendered = scratch.text("report.html")
        #expect(!rows.isEmpty)
        #expect(rerendered.components(separatedBy: " class=\"verdict ").dropFirst()
            .map { $0.prefix(while: { $0 != "<" }) } == rows)
    }

    @Test func anyExecutableGivenWithAgentIsTheAppUnderTest() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // `bench agent` given as a foreign command line, quoted as a user would type it.
        let command = "'\(try benchExecutable())' agent --seed 7"
        let run = try await runBench(
            ["--profile", scratch.profile, "--scenario", "housekeeping", "--agent", command, "--json", "--out", scratch.out],
            in: scratch.root)
        #expect(run.status == 0, "\(run.output)")
        let report = try Self.decodeReport(run.stdout)
        #expect(report.scenarios.map(\.name) == ["housekeeping"])
        #expect(report.passed, "\(report.scenarios.flatMap(\.verdicts).filter(\.failed))")
    }

    /// `--agent` takes the builtin names of `bench matrix` too (a misbehaviour's here), and
    /// the console names a download as the timeline does, and a scenario's own property once.
    @Test func aBuiltinNameGivenWithAgentIsThatEngine() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await runBench(
            ["--profile", scratch.profile, "--scenario", "auto-suspend-on-disconnect", "--agent", "fail-on-outage", "--json",
             "--out", scratch.out],
            in: scratch.root)
        #expect(run.status == 1, "\(run.output)")
        let report = try Self.decodeReport(run.stdout)
        #expect(report.run.agent == "deadzone --misbehave fail-on-outage")
        let scenario = try #require(report.scenarios.first)
        #expect(scenario.failedProperties == ["auto-suspend-on-disconnect"], "\(scenario.verdicts.filter(\.failed))")
        let downloads = try #require(scenario.downloads)
        #expect(run.stderr.contains("FAIL  its own property: "), "\(run.stderr)")
        #expect(downloads.contains { run.stderr.contains("download \($0.label) ") }, "\(run.stderr)")
        #expect(!downloads.contains { run.stderr.contains($0.token) }, "the console names downloads, never by whole tokens")
        #expect(downloads.allSatisfy { run.stdout.contains($0.token) }, "report.json keeps the tokens whole")
        #expect(downloads.contains { scratch.text("junit.xml").contains("download \($0.label) ") })
    }

    @Test(arguments: [
        (["--agent", "'unterminated"], "a ' is not closed"),
        (["--agent", "  "], "names no executable"),
        (["--agent", "x", "--misbehave", "fake-license"], "cannot be combined with --agent"),
        (["--agent", "python", "--misbehave", "fake-license"], "cannot be combined with --agent python"),
    ])
    func aBadAgentCommandIsBadInput(arguments: [String], says: String) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await runBench(["--profile", scratch.profile, "--out", scratch.out] + arguments, in: scratch.root)
        #expect(run.status == 2, "\(run.output)")
        #expect(run.stderr.contains(says), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.out + "/report.json"))
    }

    @Test func aTimeLimitStopsTheScenarioAndFailsIt() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        // A default baseline made with another profile: the page says why it has none.
        try scratch.writeBaseline(Baseline(profile: "flaky-wifi", scenarios: [:]))
        let run = try await runBench(
            ["--profile", scratch.profile, "--scenario", "housekeeping", "--time-limit", "1", "--out", scratch.out],
            in: scratch.root)
        #expect(run.status == 1, "\(run.output)")
        let report = try Self.decodeReport(scratch.text("report.json"))
        let error = try #require(report.scenarios.first?.error)
        #expect(error.contains("time limit of 1"), "\(error)")
        #expect(run.stdout.contains("FAIL  the scenario ran past its time limit"), "\(run.stdout)")
        #expect(scratch.text("report.html").contains("No baseline column: the default baseline Reports/baseline.json "
            + "was made with profile flaky-wifi, this run used cli-test."))
    }

    @Test func theGateFailsOnARegressionComparingOnlyTheScenarioRun() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let baseline = scratch.root + "/baseline.json"
        try scratch.writeBaseline(Baseline(profile: "cli-test", scenarios: [
            "license-before-background": [
                "time_to_complete_s": MetricBaseline(value: 0.001, tolerance: 0, direction: .lowerIsBetter)
            ],
            "crash-recovery": ["time_to_complete_s": MetricBaseline(value: 1, tolerance: 0, direction: .lowerIsBetter)],
        ]), to: baseline)
        let gate = try await runBench([
            "gate", "--baseline", baseline, "--profile", scratch.profile, "--scenario", "license-before-background",
            "--out", scratch.out,
        ])
        #expect(gate.status == 1, "\(gate.output)")
        #expect(gate.stdout.contains("regression        license-before-background / time_to_complete_s: 0.001 → "),
                "\(gate.stdout)")
        #expect(gate.stdout.contains("compared only     the scenarios run (license-before-background); not run, not "
            + "judged: crash-recovery"), "\(gate.stdout)")
        #expect(!gate.stdout.contains("property failed") && !gate.stdout.contains("missing scenario"), "\(gate.stdout)")
    }

    @Test func updatingTheBaselineFromAFailingRunIsRefused() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let baseline = scratch.root + "/baseline.json"
        try scratch.writeBaseline(Baseline(profile: "cli-test", scenarios: [:]), to: baseline)
        let before = FileManager.default.contents(atPath: baseline)
        let gate = try await runBench([
            "gate", "--baseline", baseline, "--profile", scratch.profile, "--scenario", "license-before-background",
            "--time-limit", "1", "--update-baseline", "--out", scratch.out,
        ])
        #expect(gate.status == 1, "\(gate.output)")
        #expect(gate.stdout.contains("--update-baseline refused (") && gate.stdout.contains("1 scenario error)"),
                "\(gate.stdout)")
        #expect(gate.stdout.contains("  scenario error    license-before-background: the scenario ran past its time limit"))
        #expect(!gate.stdout.contains("baseline written"))
        #expect(FileManager.default.contents(atPath: baseline) == before, "the baseline was rewritten")
    }

    @Test func theGateRefusesABaselineOfAnotherProfileOrScenarioSetBeforeRunning() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let baseline = scratch.root + "/baseline.json"
        try scratch.writeBaseline(Baseline(profile: "flaky-wifi", scenarios: ["housekeeping": [:]]), to: baseline)
        let profile = try await runBench([
            "gate", "--baseline", baseline, "--profile", scratch.profile, "--scenario", "housekeeping", "--out", scratch.out,
        ])
        #expect(profile.status == 2, "\(profile.output)")
        #expect(profile.stderr.contains("was made with the profile flaky-wifi, this run uses cli-test"), "\(profile.stderr)")
        try scratch.writeBaseline(Baseline(profile: "cli-test", scenarios: ["housekeeping": [:]]), to: baseline)
        let set = try await runBench([
            "gate", "--baseline", baseline, "--profile", scratch.profile, "--scenario", "crash-recovery", "--out", scratch.out,
        ])
        #expect(set.status == 2, "\(set.output)")
        #expect(set.stderr.contains("another scenario set: it has no crash-recovery"), "\(set.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.out), "it ran before refusing")
        let few = try await runBench(["gate", "--baseline", baseline, "--profile", scratch.profile, "--calibrate", "2"])
        #expect(few.status == 2 && few.stderr.contains("at least 3 runs"), "\(few.output)")
    }

    @Test func calibratingRunsTheSuiteNTimesAndWritesMediansAndSpreads() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let baseline = scratch.root + "/baseline.json"
        let calibrate = try await runBench([
            "gate", "--baseline", baseline, "--profile", scratch.profile, "--scenario", "license-before-background",
            "--calibrate", "3", "--out", scratch.out,
        ])
        #expect(calibrate.status == 0, "\(calibrate.output)")
        for run in 1...3 {
            #expect(FileManager.default.fileExists(atPath: scratch.out + "/run-\(run)/report.json"), "run \(run)")
        }
        let written = try Baseline.read(from: URL(fileURLWithPath: baseline))
        #expect(written.profile == "cli-test" && written.calibration?.runs == 3)
        let time = try #require(written.scenarios["license-before-background"]?["time_to_complete_s"])
        let samples = try #require(time.calibration?.samples)
        #expect(samples.count == 3 && time.value == samples.sorted()[1])
        #expect(calibrate.stdout.contains("license-before-background / time_to_complete_s: "), "\(calibrate.stdout)")
        // The gate then passes against it (same machine, same seed).
        let gate = try await runBench([
            "gate", "--baseline", baseline, "--profile", scratch.profile, "--scenario", "license-before-background",
            "--out", scratch.out + "/gate",
        ])
        #expect(gate.status == 0, "\(gate.output)")
    }
}
