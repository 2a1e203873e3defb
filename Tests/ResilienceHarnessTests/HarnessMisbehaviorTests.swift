import BenchCore
import EngineAgent
import Foundation
import ResilienceHarness
import Testing

/// End to end: the real harness (origin, conditioner, `bench agent` child processes)
/// runs one scenario with a deliberately misbehaving agent, and must report exactly the
/// property that misbehaviour breaks as failed. The honest agent passing the same
/// scenarios is what the CI gate (`bench gate`) shows on every run.
///
/// Serialized: each run shapes real links and times real outages; running many side by
/// side on a small machine would only blur their timing. The misbehaviours and replays
/// are split in three suites, this one, `HarnessSeamMisbehaviorTests` and
/// `HarnessReplayTests`, which run beside each other (three scenarios at once): in two
/// they were the test run's longest stretch (450 s on 2026-12-03; 580 s in one).
@Suite(.serialized, .timeLimit(.minutes(5))) struct HarnessMisbehaviorTests {
    /// Fast, clean links so a scenario takes seconds: WiFi 8 Mbit/s, cellular 4 Mbit/s (expensive).
    static let profile = Profile(
        name: "test-links",
        initial: [
            .wifi: InterfaceSetup(link: InterfaceLink(
                downlink: LinkDirectionParameters(rate: .constant(bitsPerSecond: 8_000_000), delay: .milliseconds(5)),
                uplink: LinkDirectionParameters(rate: .constant(bitsPerSecond: 4_000_000), delay: .milliseconds(5)))),
            .cellular: InterfaceSetup(link: InterfaceLink(
                downlink: LinkDirectionParameters(rate: .constant(bitsPerSecond: 4_000_000), delay: .milliseconds(20)),
                uplink: LinkDirectionParameters(rate: .constant(bitsPerSecond: 2_000_000), delay: .milliseconds(20)),
                isExpensive: true)),
        ])

    /// Suite A's misbehaviours, each with the shipped scenario that creates its
    /// situation; `HarnessSeamMisbehaviorTests` plays the others beside it.
    static let cases: [(AgentMisbehavior, String)] = [
        (.ignoreCellularPolicy, "cellular-policy"),
        (.failOnOutage, "auto-suspend-on-disconnect"),
        (.refetchAfterCrash, "crash-recovery"),
        (.restartPartialSegments, "crash-recovery"),
        (.bypassConditioner, "cellular-policy"),
        (.hammerRefusedPort, "auto-suspend-on-disconnect"),
        (.noBackoff, "network-edges"),
        (.downloadingWhileOffline, "auto-suspend-on-disconnect"),
    ]

    @Test(arguments: cases.map(\.0))
    func theHarnessReportsExactlyThePropertyAMisbehaviourBreaks(_ misbehavior: AgentMisbehavior) async throws {
        let scenario = try #require(Self.cases.first { $0.0 == misbehavior }?.1)
        try await Self.playExpectingExactlyItsProperty(misbehavior, in: scenario)
    }

    /// Plays `scenarioName` with `misbehavior` on the fast links and requires that exactly
    /// the property it breaks failed, with evidence (and, for some, the rule that caught it).
    static func playExpectingExactlyItsProperty(_ misbehavior: AgentMisbehavior, in scenarioName: String) async throws {
        try #require(!HarnessReplayTests.replays.contains { $0.misbehavior == misbehavior }, "a replay has its own test")
        let scenario = try ShippedScenarios.named(scenarioName)
        let options = HarnessOptions(
            profile: Self.profile, profilePath: "(test)", seed: 7, timeLimit: .seconds(150),
            app: try benchAgent(AgentOptions(misbehavior: misbehavior)))
        let run = await HarnessRunner.run([scenario], options: options)
        let result = try #require(run.report.scenarios.first)
        let failed = result.verdicts.filter(\.failed).map(\.property)
        let summaries = result.verdicts.map { "\($0.property): \($0.outcome.rawValue): \($0.summary)" }
        #expect(result.error == nil, "the scenario did not run to its end: \(result.error ?? "")")
        #expect(failed == [misbehavior.brokenProperty], "verdicts:\n\(summaries.joined(separator: "\n"))")
        let broken = try #require(result.verdicts.first { $0.property == misbehavior.brokenProperty })
        #expect(!broken.evidence.isEmpty, "a failed verdict must carry its evidence")
        #expect(broken.evidence.allSatisfy { $0.obligation != nil }, "each violation names its obligation")
        if let rule = Self.rules[misbehavior] {
            #expect(broken.evidence.contains { found in rule.allSatisfy { found.text.contains($0) } },
                    "caught by the rule of \(rule): \(broken.evidence.map(\.text))")
        }
    }

    /// The words of the rule that must catch a misbehaviour, where several could.
    static let rules: [AgentMisbehavior: [String]] = [
        // Caught by the claims rule: licenseAcquired before any license reached the app.
        .fakeLicense: ["claimed a license it never fetched"],
        // Caught by the first-segment rule: a segment started before the slow license arrived.
        .segmentsBeforeLicense: ["the first encrypted segment of download"],
        // Caught by the Range rule on the harness's disk snapshot: a path the disk held in
        // part at the kill fetched again from byte 0.
        .restartPartialSegments: ["asked no Range (from byte 0) after the kill, but the disk held"],
        // Caught on the disk snapshot: a path held whole at the kill fetched again.
        .refetchAfterCrash: ["the app's disk held the whole of it at the kill"],
        // Caught by the count: refused connects 1 ms apart while WiFi's update is late.
        .noBackoff: ["refused at the conditioner", "above"],
        .downloadingWhileOffline: ["while the app knew no interface was up"],
        // Caught on the harness's reads of the app's storage in the pause.
        .pauseOnlyTheList: ["a paused transfer goes on"],
        // Caught at the conditioner: refused connects, which never reach the origin.
        .hammerRefusedPort: ["connection attempts on wifi", "above"],
        // The seams (docs/obligations.md): the pause across the relaunch and the path's
        // return, the offline resume, the failures with WiFi up.
        .unpauseAfterRelaunch: ["left suspended(user)", "across the launch after"],
        .unpauseOnPathReturn: ["left suspended(user)"],
        .downloadingOnOfflineResume: ["suspended(user) → downloading", "while the app knew no interface was up"],
        .failOnBodyCut: ["with no permanent cause the world showed", "wifi up"],
        .failOnServerError: ["with no permanent cause the world showed", "503", "not 5"],
    ]
}
