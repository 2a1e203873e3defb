import Foundation
@testable import ResilienceHarness
import Testing

/// `bench --agent-listen HOST:PORT --launch 'CMD' --kill 'CMD'` end to end: the Python
/// reference engine, started by a launch command and connected over the socket, gets
/// the verdicts it gets on stdin/stdout with the same seed (a crash and a relaunch
/// included), and a bad launch is an error in the report, never a pass.
@Suite(.timeLimit(.minutes(6))) struct BenchLaunchCommandTests {
    typealias Scratch = BenchRunCommandTests.Scratch

    static let engine = ShippedScenarios.root + "/examples/agents/python/agent.py"
    static let scenarios = ["--scenario", "crash-recovery"]

    @Test func overTheSocketTheEngineGetsTheVerdictsItGetsOnStdio() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let common = ["--profile", scratch.profile, "--seed", "7"] + Self.scenarios
        let stdio = try await runBench(common + ["--agent", "python3 \(Self.engine)", "--out", scratch.out + "/stdio"], in: scratch.root)
        let socket = try await runBench(
            common + ["--agent-listen", "127.0.0.1:0", "--launch", "exec python3 '\(Self.engine)'", "--out", scratch.out + "/socket"],
            in: scratch.root)
        #expect(stdio.status == 0, "\(stdio.output)")
        #expect(socket.status == 0, "\(socket.output)")
        #expect(socket.stderr.contains("bench: apps connect to 127.0.0.1:"), "\(socket.stderr)")
        let overStdio = try BenchRunCommandTests.decodeReport(scratch.text("stdio/report.json"))
        let overSocket = try BenchRunCommandTests.decodeReport(scratch.text("socket/report.json"))
        #expect(BenchShardCommandTests.verdicts(overSocket) == BenchShardCommandTests.verdicts(overStdio))
        // The crash happened: crash-recovery's verdict rests on a kill and a relaunch.
        let crash = try #require(overSocket.scenarios.first { $0.name == "crash-recovery" })
        #expect(crash.verdicts.contains { $0.property == "crash-recovery" && $0.outcome == .passed }, "\(crash.verdicts)")
        #expect(overSocket.run.agent == "exec python3 '\(Self.engine)'")
    }

    @Test func aLaunchThatFailsIsAScenarioErrorAndBadOptionsAreBadInput() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let failing = try await runBench(
            ["--profile", scratch.profile, "--scenario", "housekeeping", "--agent-listen", "127.0.0.1:0",
             "--launch", "echo no simulator booted >&2; exit 9", "--out", scratch.out + "/failing"], in: scratch.root)
        #expect(failing.status == 1, "\(failing.output)")
        let report = try BenchRunCommandTests.decodeReport(scratch.text("failing/report.json"))
        let error = report.scenarios.first?.error ?? ""
        #expect(error.contains("the app could not be launched") && error.contains("exit status 9")
            && error.contains("no simulator booted"), "\(error)")
        #expect(!report.passed)

        let refusals: [([String], String)] = [
            (["--agent", "python3 x.py", "--launch", "python3 x.py"], "--launch starts the app instead of --agent"),
            (["--agent-listen", "localhost"], "is not HOST:PORT"),
            (["--agent-listen", "example.com:80"], "is not an IPv4 address"),
            (["--launch", " "], "--launch is empty"),
        ]
        for (arguments, says) in refusals {
            let refused = try await runBench(
                ["--profile", scratch.profile, "--scenario", "housekeeping"] + arguments + ["--out", scratch.out + "/refused"],
                in: scratch.root)
            #expect(refused.status == 2 && refused.stderr.contains(says), "\(says): \(refused.output)")
        }
    }
}
