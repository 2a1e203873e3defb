import EngineAgent
import ResilienceHarness
import Testing

/// Bugs of real download managers, replayed by misbehaving variants of Deadzone's engine:
/// the third of the misbehaviour suites (see `HarnessMisbehaviorTests`), played beside
/// the other two. Each must fail its property with its evidence, and nothing else but
/// the properties it breaks as a consequence. The two that run into their time limit
/// come last, past the busy start of `swift test`, where `wifi-return-unnoticed`'s
/// scenario once left its situation uncreated (the wifi-only download finished before
/// WiFi went away).
@Suite(.serialized, .timeLimit(.minutes(5))) struct HarnessReplayTests {
    /// A bug of a real download manager, replayed: the scenario of the default suite that
    /// creates its situation, the property that must fail with evidence, the other
    /// properties the bug also breaks as a consequence (named, so that nothing else may
    /// fail), and a scenario time limit for a bug that leaves a download stuck.
    struct Replay: Sendable, CustomTestStringConvertible {
        var misbehavior: AgentMisbehavior
        var scenario: String
        /// A text the broken property's evidence must contain (one of them, where a race
        /// decides which of two ways the bug shows).
        var evidence: [String]
        var consequences: Set<String> = []
        var timeLimit: Duration = .seconds(150)
        var testDescription: String { misbehavior.rawValue }
    }

    static let replays: [Replay] = [
        // mux-player-swift PR #80: a second copy after each crash refetches what the disk held.
        Replay(misbehavior: .duplicateAfterRelaunch, scenario: "crash-recovery",
               evidence: ["the app's disk held the whole of it at the kill"]),
        // novoda download-manager #442: the later request's cellular setting given to the
        // earlier download too, which then goes on over cellular. So it does not suspend
        // when WiFi goes: when it has not finished within the suspend bound (a loaded
        // machine, a full test run), auto-suspend-on-disconnect sees that too.
        Replay(misbehavior: .cellularSettingPerBatch, scenario: "cellular-policy", evidence: ["which may not use cellular"],
               consequences: ["auto-suspend-on-disconnect"]),
        // WWDC app #163: reported downloaded after the relaunch, before the origin sent it
        // all (and so with its progress short of 1).
        Replay(misbehavior: .completeAfterRelaunch, scenario: "network-edges", evidence: ["reported downloaded before"],
               consequences: ["monotonic-progress"]),
        // androidx/media #1712: WiFi gone, only cellular (not allowed) left: the download
        // stops for good. When the reset reached the app before its path update, it last
        // showed suspended(network) and never goes on when WiFi is back (liveness fails
        // too); when the update came first, it still shows downloading over a cellular it
        // may not use (cellular-policy fails too) and the scenario's wait for it to stop
        // runs out. Either way the time limit ends the scenario.
        Replay(misbehavior: .stuckAfterHandoff, scenario: "cellular-policy",
               evidence: ["after its outage ended", "it did not reach suspended(network)"],
               consequences: ["liveness", "cellular-policy"], timeLimit: .seconds(60)),
        // ExoPlayer #7453: WiFi comes back, the wifi-only download stays queued (so it
        // also never resumes after its outage); the scenario's wait for it runs into the
        // time limit.
        Replay(misbehavior: .wifiReturnUnnoticed, scenario: "cellular-policy", evidence: ["no bytes reached the app"],
               consequences: ["auto-suspend-on-disconnect"], timeLimit: .seconds(60)),
    ]

    @Test(arguments: replays)
    func theHarnessCatchesEachReplayedBugOnItsProperty(_ replay: Replay) async throws {
        try await Self.playExpectingItsProperty(replay)
    }

    /// Plays a replay's scenario and requires its property failed with its evidence, and
    /// nothing else but its consequences.
    static func playExpectingItsProperty(_ replay: Replay) async throws {
        let scenario = try ShippedScenarios.named(replay.scenario)
        let options = HarnessOptions(
            profile: HarnessMisbehaviorTests.profile, profilePath: "(test)", seed: 7, timeLimit: replay.timeLimit,
            app: try benchAgent(AgentOptions(misbehavior: replay.misbehavior)))
        let run = await HarnessRunner.run([scenario], options: options)
        let result = try #require(run.report.scenarios.first)
        let failed = Set(result.verdicts.filter(\.failed).map(\.property))
        let summaries = result.verdicts.map { "\($0.property): \($0.outcome.rawValue): \($0.summary)" }
        let property = replay.misbehavior.brokenProperty
        #expect(failed.contains(property), "verdicts:\n\(summaries.joined(separator: "\n"))")
        #expect(failed.subtracting([property]).isSubset(of: replay.consequences),
                "only \(property) and its consequences may fail; verdicts:\n\(summaries.joined(separator: "\n"))")
        let broken = try #require(result.verdicts.first { $0.property == property })
        #expect(broken.evidence.contains { found in replay.evidence.contains { found.text.contains($0) } },
                "\(broken.evidence.map(\.text))")
        if replay.timeLimit == .seconds(150) {
            #expect(result.error == nil, "the scenario did not run to its end: \(result.error ?? "")")
        }
    }
}
