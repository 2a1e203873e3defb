import EngineAgent
import ResilienceHarness
import Testing

/// The second half of `HarnessMisbehaviorTests`, played beside it (see there): the
/// misbehaviours of the seams between properties (docs/obligations.md: a pause across a
/// relaunch and a path's return, a resume with no interface, failures with WiFi up),
/// those of licenses, claims and pauses. Each must fail exactly the property it breaks,
/// in the shipped scenario that creates its situation.
@Suite(.serialized, .timeLimit(.minutes(5))) struct HarnessSeamMisbehaviorTests {
    static let cases: [(AgentMisbehavior, String)] = [
        (.unpauseAfterRelaunch, "pause-seams"),
        (.unpauseOnPathReturn, "pause-seams"),
        (.downloadingOnOfflineResume, "pause-seams"),
        (.failOnBodyCut, "failure-seams"),
        (.failOnServerError, "failure-seams"),
        (.backgroundBeforeLicense, "license-before-background"),
        (.claimsUnstoredSegments, "housekeeping"),
        (.claimsDownloadedEarly, "cellular-policy"),
        (.fakeLicense, "license-before-background"),
        (.segmentsBeforeLicense, "license-before-background"),
        (.pauseOnlyTheList, "housekeeping"),
    ]

    @Test(arguments: cases.map(\.0))
    func theHarnessReportsExactlyThePropertyAMisbehaviourBreaks(_ misbehavior: AgentMisbehavior) async throws {
        let scenario = try #require(Self.cases.first { $0.0 == misbehavior }?.1)
        try await HarnessMisbehaviorTests.playExpectingExactlyItsProperty(misbehavior, in: scenario)
    }

    /// The misbehaviours the fixture catalog cannot show (it has no init sections and no
    /// byte ranges), played instead on streams recorded from nginx by
    /// `RecordCommandTests.aVariantThatDropsInitSectionsOrRestartsAByteRangeIsCaught`
    /// (StreamRecorderTests), which requires each to fail exactly its property there.
    static let playedOnRecordedStreams: [AgentMisbehavior] = [.dropsInitSections, .byteRangeFromZero]

    /// Every misbehaviour is played by one of the three suites or on a recorded stream
    /// (`playedOnRecordedStreams`, named one by one), and none twice.
    @Test func everyMisbehaviourIsPlayed() {
        let played = (HarnessMisbehaviorTests.cases + Self.cases).map(\.0)
            + HarnessReplayTests.replays.map(\.misbehavior) + Self.playedOnRecordedStreams
        #expect(Set(played) == Set(AgentMisbehavior.allCases), "missing: \(Set(AgentMisbehavior.allCases).subtracting(played))")
        #expect(played.count == Set(played).count, "played twice")
    }
}
