import Foundation
import Testing

/// The Swift-kit example app (`examples/apps/urlsession`: URLSession on `DeadzoneKit`) as
/// any app: `bench` starts it on stdin/stdout, kills it mid-download and starts it again,
/// and judges it from what the network and its disk saw. (CI plays the whole suite with it
/// over a socket; this keeps the kit's stdin/stdout path under `swift test`.)
@Suite(.timeLimit(.minutes(4))) struct KitExampleAppTests {
    typealias Scratch = BenchRunCommandTests.Scratch

    @Test func theExampleAppPassesCrashRecoveryOverStdio() async throws {
        let app = try builtExecutable("deadzone-urlsession-example")
        let scratch = try Scratch()
        defer { scratch.remove() }
        let run = try await runBench(
            ["--profile", scratch.profile, "--seed", "7", "--scenario", "crash-recovery", "--agent", app,
             "--out", scratch.out + "/kit"], in: scratch.root)
        #expect(run.status == 0, "\(run.output)")
        let report = try BenchRunCommandTests.decodeReport(scratch.text("kit/report.json"))
        #expect(report.run.agent == app)
        let crash = try #require(report.scenarios.first { $0.name == "crash-recovery" })
        #expect(crash.error == nil, "\(crash.error ?? "")")
        // The verdict rests on kills and relaunches that happened, judged on the app's disk.
        #expect(crash.verdicts.contains { $0.property == "crash-recovery" && $0.outcome == .passed }, "\(crash.verdicts)")
        #expect(crash.verdicts.contains { $0.property == "integrity" && $0.outcome == .passed }, "\(crash.verdicts)")
    }
}
