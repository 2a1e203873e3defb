import Foundation
import ResilienceHarness
import Testing

@Suite struct GateBaselineTests {
    static func report(_ figures: ScenarioMetrics, scenario: String = "outage") -> RunReport {
        RunReport(
            run: RunMetadata(
                profile: "p", profilePath: "p.yaml", seed: 1, startedAt: Date(timeIntervalSince1970: 0), durationSeconds: 1,
                versions: [:], machine: [:]),
            scenarios: [ScenarioResult(name: scenario, summary: "", verdicts: [], metrics: figures, startNanoseconds: 0, endNanoseconds: 1)])
    }

    @Test func updatingKeepsHandTunedTolerancesAndDefaultsTheRest() throws {
        let old = Baseline(scenarios: [
            "outage": [
                "time_to_complete_s": MetricBaseline(value: 40, tolerance: 0.1, direction: .lowerIsBetter, absoluteSlack: 3),
                "resume_latency_s": MetricBaseline(value: 1, tolerance: 0.5, direction: .lowerIsBetter),
            ],
            "other": ["goodput_bps": MetricBaseline(value: 5, tolerance: 0.3, direction: .higherIsBetter)],
        ])
        let run = Self.report(ScenarioMetrics(
            timeToCompleteSeconds: 35, goodputBitsPerSecond: 2e6, bytesByInterface: ["cellular": 0], requestsDuringOutages: 0))
        let new = old.updated(from: run)
        let outage = try #require(new.scenarios["outage"])
        // Kept: tolerance, direction and slack; value from the run.
        #expect(outage["time_to_complete_s"] == MetricBaseline(value: 35, tolerance: 0.1, direction: .lowerIsBetter, absoluteSlack: 3))
        // New metrics: the defaults by name.
        #expect(outage["goodput_bps"] == MetricBaseline(value: 2e6, tolerance: 0.25, direction: .higherIsBetter))
        #expect(outage["requests_during_outages"]
            == MetricBaseline(value: 0, tolerance: 0.5, direction: .lowerIsBetter, absoluteSlack: 2))
        #expect(outage["bytes_cellular"]?.direction == .informational)
        // Dropped: the run no longer measures it. Kept: the scenario the run did not have.
        #expect(outage["resume_latency_s"] == nil)
        #expect(new.scenarios["other"] == old.scenarios["other"])
        // The updated baseline accepts the run it came from: every metric holds; only the
        // kept scenario the run did not have is reported (a partial run is not a full gate).
        let gate = GateComparison(report: run, baseline: new)
        #expect(gate.regressions.isEmpty && gate.missingMetrics.isEmpty && gate.newMetrics.isEmpty)
        #expect(gate.missingScenarios == ["other"])
        #expect(GateComparison(report: run, baseline: Baseline().updated(from: run)).passed)
    }

    @Test func everyDocumentedMetricHasADirection() {
        let directions = Dictionary(uniqueKeysWithValues: [
            "time_to_complete_s", "goodput_bps", "wasted_bytes", "suspend_latency_s", "resume_latency_s",
            "bytes_refetched_after_crash", "requests_during_outages", "agent_peak_rss_bytes", "bytes_wifi", "bytes_cellular",
        ].map { ($0, MetricBaseline.defaultPolicy(for: $0).direction) })
        #expect(directions["goodput_bps"] == .higherIsBetter)
        #expect(directions["bytes_wifi"] == .informational && directions["bytes_cellular"] == .informational)
        #expect(directions.filter { $0.value == .lowerIsBetter }.count == 7)
        // Zero-baseline metrics must have an absolute slack, or any noise would fail them.
        for name in ["wasted_bytes", "bytes_refetched_after_crash", "requests_during_outages"] {
            #expect(MetricBaseline.defaultPolicy(for: name).absoluteSlack > 0, "\(name)")
        }
    }

    @Test func theFileRoundTripsAndRefusesOtherVersions() throws {
        let baseline = Baseline(scenarios: ["outage": ["wasted_bytes": MetricBaseline(value: 0, tolerance: 0.5, direction: .lowerIsBetter, absoluteSlack: 1024)]])
        let data = try baseline.encoded()
        #expect(try Baseline.decode(data) == baseline)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"direction\" : \"lowerIsBetter\""))

        let newer = Data(text.replacingOccurrences(of: "\"schemaVersion\" : 1", with: "\"schemaVersion\" : 2").utf8)
        #expect(throws: BaselineError.unsupportedSchemaVersion(path: "b.json", found: 2, supported: 1)) {
            try Baseline.decode(newer, path: "b.json")
        }
    }

    @Test func absoluteSlackMayBeLeftOutButNothingMayBeNegative() throws {
        let minimal = #"{"schemaVersion": 1, "scenarios": {"s": {"m": {"value": 3, "tolerance": 0.1, "direction": "higherIsBetter"}}}}"#
        #expect(try Baseline.decode(Data(minimal.utf8)).scenarios["s"]?["m"]?.absoluteSlack == 0)
        let negative = minimal.replacingOccurrences(of: "0.1", with: "-0.1")
        #expect {
            try Baseline.decode(Data(negative.utf8))
        } throws: { error in
            guard case .malformed = error as? BaselineError else { return false }
            return true
        }
    }

    @Test func aMissingFileSaysHowToMakeOne() throws {
        let url = URL(fileURLWithPath: "/nonexistent-\(UUID())/baseline.json")
        #expect(throws: BaselineError.missing(path: url.path)) { try Baseline.read(from: url) }
        #expect(BaselineError.missing(path: "x").description.contains("--update-baseline"))
    }

    @Test func writeThenRead() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("baseline-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: url) }
        let baseline = Baseline().updated(from: Self.report(ScenarioMetrics(timeToCompleteSeconds: 1.5)))
        try baseline.write(to: url)
        #expect(try Baseline.read(from: url) == baseline)
    }

    @Test func anUpdatedBaselineRecordsItsProfileAndTheFileKeepsIt() throws {
        let updated = Baseline().updated(from: Self.report(ScenarioMetrics(timeToCompleteSeconds: 3)))
        #expect(updated.profile == "p")
        #expect(try Baseline.decode(updated.encoded()).profile == "p")
        #expect(try Baseline.decode(Data(#"{"schemaVersion": 1, "scenarios": {}}"#.utf8)).profile == nil)
    }

    /// `bench run` without `--baseline`: the default file only when made with the same profile.
    @Test func theDefaultBaselineIsUsedOnlyForItsOwnProfile() throws {
        let directory = NSTemporaryDirectory() + "deadzone-baseline-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/baseline.json"
        guard case .none(let missing) = Baseline.defaultChoice(for: "p", at: path) else {
            Issue.record("a missing file was used")
            return
        }
        #expect(missing == "there is no default baseline at \(path)")
        try Baseline(scenarios: [:]).write(to: URL(fileURLWithPath: path))
        guard case .none(let unnamed) = Baseline.defaultChoice(for: "p", at: path) else {
            Issue.record("a baseline without a profile was used")
            return
        }
        #expect(unnamed.contains("does not say which profile it was made with"))
        let mine = Baseline(profile: "p", scenarios: ["outage": [:]])
        try mine.write(to: URL(fileURLWithPath: path))
        #expect(Baseline.defaultChoice(for: "p", at: path) == .use(mine, path: path))
        #expect(Baseline.defaultChoice(for: "other", at: path)
            == .none(reason: "the default baseline \(path) was made with profile p, this run used other"))
        try Data("{".utf8).write(to: URL(fileURLWithPath: path))
        guard case .none(let broken) = Baseline.defaultChoice(for: "p", at: path) else {
            Issue.record("a broken file was used")
            return
        }
        #expect(broken.contains("is not a Deadzone baseline"), "\(broken)")
    }
}
