import Foundation
@testable import ResilienceHarness
import Testing

/// `bench --https` end to end: each engine, given the run's CA (hello's `caFile`), plays a
/// scenario that downloads protected videos from an origin and license server that speak
/// only TLS to it, and passes; `ca.pem` is in the report directory, the report says the
/// run was served over HTTPS, and the origin attributes every request to an interface.
@Suite(.timeLimit(.minutes(6))) struct BenchHTTPSCommandTests {
    typealias Scratch = BenchRunCommandTests.Scratch

    static let scenario = ["--scenario", "license-before-background"]

    @Test func deadzonesEnginePlaysAProtectedScenarioOverHTTPS() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await runBench(
            ["--profile", scratch.profile, "--seed", "7", "--https", "--out", scratch.out + "/deadzone"] + Self.scenario,
            in: scratch.root)
        try Self.check(run, in: scratch, "deadzone")
    }

    @Test func thePythonEnginePlaysAProtectedScenarioOverHTTPS() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let engine = BenchLaunchCommandTests.engine
        let run = try await runBench(
            ["--profile", scratch.profile, "--seed", "7", "--https", "--agent", "python3 \(engine)",
             "--out", scratch.out + "/python"] + Self.scenario,
            in: scratch.root)
        try Self.check(run, in: scratch, "python")
    }

    /// The run passed over HTTPS with `ca.pem` beside its report, and the origin's records
    /// name the interface of every request (those of the license server included).
    static func check(_ run: BenchOutcome, in scratch: Scratch, _ name: String) throws {
        #expect(run.status == 0, "\(run.output)")
        let report = try BenchRunCommandTests.decodeReport(scratch.text(name + "/report.json"))
        #expect(report.passed)
        #expect(report.run.https == true)
        let played = try #require(report.scenarios.first)
        #expect(played.verdicts.contains { $0.property == "license-before-background" && $0.outcome == .passed },
                "error: \(played.error ?? "none"); failed: \(played.verdicts.filter(\.failed).map { "\($0.property): \($0.summary)" })")
        #expect(scratch.text(name + "/ca.pem").hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(scratch.text(name + "/report.html").contains("HTTPS (--https)"))
        let origin = scratch.text(name + "/trace.jsonl").split(separator: "\n").compactMap { line -> [String: Any]? in
            guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                entry["source"] as? String == "origin" else { return nil }
            return entry["event"] as? [String: Any]
        }
        let paths = origin.compactMap { $0["path"] as? String }
        #expect(paths.contains { $0.hasSuffix(".ts") } && paths.contains("/license"), "\(paths)")
        let unattributed = origin.filter { ($0["interface"] as? String ?? "").isEmpty }
        #expect(unattributed.isEmpty, "requests the origin could not attribute to an interface: \(unattributed)")
    }
}
