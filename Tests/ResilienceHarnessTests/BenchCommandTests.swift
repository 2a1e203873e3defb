import Foundation
import ResilienceHarness
import Testing

/// The `bench` command's answers to bad input: exit status 2 and a message that says
/// what to do, before anything is started.
@Suite(.timeLimit(.minutes(2))) struct BenchCommandTests {
    func bench(_ arguments: [String], in directory: String? = nil) async throws -> BenchOutcome {
        try await runBench(arguments, in: directory)
    }

    func temporaryProfile(_ yaml: String) throws -> String {
        let path = NSTemporaryDirectory() + "deadzone-profile-\(UUID().uuidString).yaml"
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aMissingProfileIsBadInput() async throws {
        let outcome = try await bench(["--profile", "/nonexistent/profile.yaml"])
        #expect(outcome.status == 2)
        #expect(outcome.output.contains("/nonexistent/profile.yaml"), "\(outcome.output)")
    }

    @Test func aBrokenProfileIsBadInputNamingTheProblem() async throws {
        let path = try temporaryProfile("name: broken\nduration: 1m\ninterfaces:\n  wifi:\n    downlink: {rate: fast}\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let outcome = try await bench(["--profile", path])
        #expect(outcome.status == 2)
        #expect(outcome.output.contains("rate"), "\(outcome.output)")
    }

    @Test func anUnknownScenarioIsBadInputListingTheKnownOnes() async throws {
        let path = try temporaryProfile("name: plain\nduration: 1m\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let outcome = try await bench(["--profile", path, "--scenario", "no-such-scenario"], in: ShippedScenarios.root)
        #expect(outcome.status == 2)
        #expect(outcome.output.contains("unknown scenario \"no-such-scenario\""))
        for scenario in try ShippedScenarios.suite().all { #expect(outcome.output.contains(scenario.name)) }
    }

    @Test func scenariosListsEveryScenarioAndProperty() async throws {
        let outcome = try await bench(["scenarios"], in: ShippedScenarios.root)
        #expect(outcome.status == 0)
        for entry in try ShippedScenarios.suite().entries {
            #expect(outcome.output.contains("\(entry.file.name) (Scenarios/\(entry.file.name).yaml)"), "\(outcome.output)")
        }
        for property in Properties.all { #expect(outcome.output.contains(property.id)) }
    }

    @Test func reportOfADirectoryWithoutAReportIsBadInput() async throws {
        let directory = NSTemporaryDirectory() + "deadzone-empty-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outcome = try await bench(["report", directory])
        #expect(outcome.status == 2)
        #expect(outcome.output.contains("report.json"), "\(outcome.output)")
    }

    /// The gate reads --intercept as a run does: refused without --https or a catalog
    /// recorded from the host, before anything plays (it was once parsed and ignored).
    @Test func theGateChecksItsInterceptionAsARunDoes() async throws {
        let directory = NSTemporaryDirectory() + "deadzone-gate-intercept-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let gate = ["gate", "--update-baseline", "--baseline", directory + "/baseline.json", "--out", directory + "/out",
                    "--intercept", "127.0.0.1:9"]
        let withoutHTTPS = try await bench(gate, in: ShippedScenarios.root)
        #expect(withoutHTTPS.status == 2)
        #expect(withoutHTTPS.output.contains("--intercept needs --https"), "\(withoutHTTPS.output)")
        let withoutCatalog = try await bench(gate + ["--https"], in: ShippedScenarios.root)
        #expect(withoutCatalog.status == 2)
        #expect(withoutCatalog.output.contains("no stream of --catalog was recorded from it"), "\(withoutCatalog.output)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/baseline.json"), "nothing was run")
    }

    @Test func theGateWithoutABaselineSaysHowToMakeOne() async throws {
        let outcome = try await bench(["gate", "--baseline", "/nonexistent/baseline.json"])
        #expect(outcome.status == 2)
        #expect(outcome.output.contains("--update-baseline"), "\(outcome.output)")
    }
}
