import AppProtocol
import BenchCore
import FixtureOrigin
@testable import ResilienceHarness
import Testing

/// The `origin-fault` step and the `if-in-flight` option: what they read, what they
/// write back, the origin's rule they make, and the errors they give.
@Suite struct ScenarioOriginFaultTests {
    static let header = "name: sample\nsummary: A sample.\nsteps:\n  - launch\n  - request: clear\n"

    @Test func everyFaultReadsAndWritesBack() throws {
        let faults: [ScenarioOriginFault] = [
            ScenarioOriginFault(.status(code: 503, retryAfter: nil)),
            ScenarioOriginFault(.status(code: 500, retryAfter: .seconds(2)), path: "/videos/clear/**", duration: .milliseconds(3500)),
            ScenarioOriginFault(.stall(afterBytes: 0, duration: nil), count: 2),
            ScenarioOriginFault(.stall(afterBytes: 4096, duration: .seconds(2)), probability: 0.25),
            ScenarioOriginFault(.stall(afterBytes: 0, duration: .seconds(1))),
            ScenarioOriginFault(.truncate(afterBytes: 1000), path: ScenarioOriginFault.segments, duration: .seconds(4), count: 3),
            ScenarioOriginFault(.slowFirstByte(.milliseconds(900)), probability: 0.5),
            ScenarioOriginFault(.malformedPlaylist, path: "/videos/**/*.m3u8"),
            ScenarioOriginFault(.captivePortal, duration: .seconds(2)),
        ]
        let file = ScenarioFile(name: "faults", summary: "Every fault.", steps: [.launch, .request(ScenarioRequest("clear"))]
            + faults.map(ScenarioStep.originFault) + [
                .userIfInFlight(.pause, download: "clear"), .userIfInFlight(.resume, download: "clear"),
                .userIfInFlight(.cancel, download: "clear"),
            ])
        #expect(try ScenarioFile.parse(yaml: file.yaml) == file, "\(file.yaml)")
    }

    @Test func theStepReadsTheFormsAProfileUses() throws {
        let file = try ScenarioFile.parse(yaml: Self.header + """
              - origin-fault: {status: {code: 503, retry-after: 2s}}
                path: /videos/**/*.ts
                for: 3s
                count: 2
                probability: 50%
              - origin-fault: {truncate: 1KB}
              - origin-fault: stall
              - pause: clear
                if-in-flight: true
              - resume: clear
                if-in-flight: false
            """)
        #expect(file.steps[2] == .originFault(ScenarioOriginFault(
            .status(code: 503, retryAfter: .seconds(2)), path: "/videos/**/*.ts", duration: .seconds(3), count: 2, probability: 0.5)))
        #expect(file.steps[3] == .originFault(ScenarioOriginFault(.truncate(afterBytes: 1000))))
        #expect(file.steps[4] == .originFault(ScenarioOriginFault(.stall(afterBytes: 0, duration: nil))))
        #expect(file.steps[5] == .userIfInFlight(.pause, download: "clear"))
        #expect(file.steps[6] == .user(.resume, download: "clear"))
    }

    @Test func theRuleIsTheOriginsFault() {
        let rule = ScenarioOriginFault(.status(code: 503, retryAfter: .seconds(1)), path: "/videos/**/*.ts", count: 2, probability: 0.5)
            .rule(id: "origin-fault-1")
        #expect(rule.id == "origin-fault-1" && rule.fault == .status(503, retryAfter: .seconds(1)))
        #expect(rule.count == 2 && rule.probability == 0.5 && rule.applies(method: "GET", path: "/videos/clear/400k/seg3.ts"))
        #expect(!rule.applies(method: "GET", path: "/videos/clear/master.m3u8"))
        #expect(ScenarioOriginFault(.stall(afterBytes: 16, duration: nil)).rule(id: "x").fault == .stallBody(afterBytes: 16, duration: nil))
    }

    @Test(arguments: [
        ("  - origin-fault: {status: 200}", "out of range"),
        ("  - origin-fault: {stal: {after: 1}}", "Did you mean 'stall'?"),
        ("  - origin-fault: teapot", "unknown fault 'teapot'"),
        ("  - origin-fault: {truncate: lots}", "expected a size"),
        ("  - origin-fault: stall\n    for: 0s", "longer than 0s"),
        ("  - origin-fault: stall\n    path: videos/**", "starts with /"),
        ("  - origin-fault: stall\n    probability: 150%", "out of range"),
        ("  - delete: clear\n    if-in-flight: true", "unknown key 'if-in-flight'"),
    ])
    func badFaultsSayWhatIsWrong(step: String, says: String) {
        do {
            _ = try ScenarioFile.parse(yaml: Self.header + step + "\n", file: "sample.yaml")
            Issue.record("\(step) was accepted")
        } catch {
            #expect(error.description.contains(says), "\(error)")
            #expect(error.line != nil, "\(error)")
        }
    }
}
