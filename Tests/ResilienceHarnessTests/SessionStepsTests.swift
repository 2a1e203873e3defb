import ResilienceHarness
import Testing

/// A session's batches of steps (`POST /session/steps`) are read as a scenario file's
/// steps are, and what one batch named carries over to the next.
@Suite struct SessionStepsTests {
    @Test func aDownloadRequestedInOneBatchIsNamedInTheNext() throws {
        var steps = SessionSteps()
        let first = try steps.parse(#"[{"request": "clear", "as": "movie"}, {"mark": "asked"}]"#)
        #expect(first == [.request(ScenarioRequest("clear", name: "movie")), .mark("asked")])
        let second = try steps.parse("- pause: movie\n- hold-until: asked\n  plus: 2s\n")
        #expect(second.count == 2)
        #expect(second.first == .user(.pause, download: "movie"))
    }

    @Test func aBatchThatDoesNotParseChangesNothing() throws {
        var steps = SessionSteps()
        // The request parses, the step after it does not: the batch is refused whole.
        let error = #expect(throws: ScenarioFileError.self) {
            try steps.parse(#"[{"request": "clear", "as": "movie"}, {"teleport": "wifi"}]"#)
        }
        #expect(error?.description.contains("teleport") == true, "\(String(describing: error))")
        #expect(error?.keyPath?.hasPrefix("steps[1]") == true, "\(String(describing: error?.keyPath))")
        // So movie was never requested.
        #expect(throws: ScenarioFileError.self) { try steps.parse("- pause: movie\n") }
        #expect(throws: ScenarioFileError.self) { try steps.parse("[]") }
        #expect(throws: ScenarioFileError.self) { try steps.parse("  \n") }
        #expect(throws: ScenarioFileError.self) { try steps.parse("{request: clear") }
    }

    @Test func aRecordedVideoIsRequestedByItsId() throws {
        var steps = SessionSteps(recordedVideos: ["team-stream"])
        #expect(try steps.parse("- request: team-stream\n").count == 1)
        var fixtureOnly = SessionSteps()
        #expect(throws: ScenarioFileError.self) { try fixtureOnly.parse("- request: team-stream\n") }
    }
}
