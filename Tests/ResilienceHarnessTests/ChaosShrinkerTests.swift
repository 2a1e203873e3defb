import AppProtocol
import BenchCore
@testable import ResilienceHarness
import Testing

/// The shrinker and its step removal, judged by fake "does it still fail" predicates
/// (no harness): what goes with a removed step, that every candidate is a valid file,
/// that the search reaches the smallest failing file and keeps to its bound.
@Suite struct ChaosShrinkerTests {
    static let file = ScenarioFile(name: "sample", summary: "A sample.", steps: [
        .up(.wifi), .waitForPath([.wifi]), .launch,
        .request(ScenarioRequest("clear", name: "a")), .request(ScenarioRequest("protected")),
        .note("event 1"), .wait(ScenarioWait(until: .any([.progress("a", .atLeast(0.3)), .segments("protected", atLeast: 2)]))),
        .userIfInFlight(.pause, download: "a"), .mark("paused"), .hold(.seconds(1)), .userIfInFlight(.resume, download: "a"),
        .note("event 2"), .down(.wifi, mode: .blackhole), .hold(.seconds(5)), .up(.wifi),
        .note("event 3"), .waitForMediaResponse(), .kill(.crash),
        .note("end"), .holdUntil(ScenarioHoldUntil(mark: "paused", plus: .duration(.seconds(4)))),
        .waitSettled(.named(["a", "protected"])), .inspect(.all), .user(.delete, download: "a"), .inspect(.named(["a"])),
    ])

    // MARK: Removal

    @Test func droppingARequestDropsWhatNamesItsDownload() throws {
        let request = try #require(Self.file.steps.firstIndex(of: .request(ScenarioRequest("clear", name: "a"))))
        let left = try #require(ChaosStepRemoval.removing([request], from: Self.file))
        #expect(!left.steps.contains(.userIfInFlight(.pause, download: "a")) && !left.steps.contains(.user(.delete, download: "a")))
        #expect(left.steps.contains(.wait(ScenarioWait(until: .any([.segments("protected", atLeast: 2)])))))
        #expect(left.steps.contains(.waitSettled(.named(["protected"]))))
        #expect(!left.steps.contains(.inspect(.named(["a"]))) && left.steps.contains(.inspect(.all)))
        #expect(left.steps.count == Self.file.steps.count - 5)
        #expect(try ScenarioFile.parse(yaml: left.yaml) == left)
    }

    @Test func droppingAMarkDropsTheHoldsUntilIt() throws {
        let mark = try #require(Self.file.steps.firstIndex(of: .mark("paused")))
        let left = try #require(ChaosStepRemoval.removing([mark], from: Self.file))
        #expect(!left.steps.contains { if case .holdUntil = $0 { true } else { false } })
        #expect(left.steps.count == Self.file.steps.count - 2)
    }

    @Test func nothingLeftIsNoCandidate() {
        #expect(ChaosStepRemoval.removing(Set(Self.file.steps.indices), from: Self.file) == nil)
    }

    @Test func aRemovalLeavesNothingACorrectAppCouldNotPass() throws {
        let settles = { (name: String) in
            ScenarioStep.wait(ScenarioWait(until: .state(name, [.downloaded, .failed, .notDownloaded])))
        }
        let file = ScenarioFile(name: "grounded", summary: "s", steps: [
            .launch, .setAllowsCellular(true), .request(ScenarioRequest("clear")), .kill(.crash), .setAllowsCellular(true),
            .request(ScenarioRequest("protected")), .prepareForBackground, .background, .foreground,
            settles("clear"), settles("protected"), .request(ScenarioRequest("http-key")), .kill(.userForceQuit),
        ])
        #expect(ChaosStepRemoval.grounded(file.steps) == file.steps)
        // Without prepareForBackground, the background goes too.
        let unprepared = try #require(ChaosStepRemoval.removing([6], from: file))
        #expect(!unprepared.steps.contains(.background) && unprepared.steps.contains(.foreground))
        // Without the wait for clear to settle, the force-quit would fail a download the
        // crash interrupted: it goes; without the last request's wait, it stays.
        let unsettled = try #require(ChaosStepRemoval.removing([9], from: file))
        #expect(!unsettled.steps.contains(.kill(.userForceQuit)))
        // Without the setting given again after the relaunch, the request that took it
        // gets it written out.
        let forgotten = try #require(ChaosStepRemoval.removing([4], from: file))
        #expect(forgotten.steps.contains(.request(ScenarioRequest("protected", allowsCellular: true))))
        #expect(forgotten.steps.contains(.request(ScenarioRequest("clear"))), "a request before the relaunch keeps the setting")
    }

    @Test func everyGeneratedScenarioIsGrounded() {
        let generator = ChaosGenerator(profileName: "flaky-wifi")
        for seed: UInt64 in 1...50 {
            let steps = generator.scenario(seed: seed).steps
            #expect(ChaosStepRemoval.grounded(steps) == steps, "seed \(seed)")
        }
    }

    // MARK: Shrinking

    @Test func itShrinksToTheStepsThatStillFail() throws {
        // "Fails" while the app is launched, downloads clear and is killed while it runs.
        var asked: [ScenarioFile] = []
        let shrinker = ChaosShrinker.shrink(Self.file, maximumRuns: 100) { candidate in
            asked.append(candidate)
            let requestsClear = candidate.steps.contains { if case .request(let r) = $0 { r.video == "clear" } else { false } }
            return candidate.steps.contains(.kill(.crash)) && requestsClear
        }
        #expect(shrinker.stop == .minimal)
        // launch and the last wait for a's download to settle stay.
        #expect(shrinker.best.steps == [
            .launch, .request(ScenarioRequest("clear", name: "a")), .kill(.crash), .waitSettled(.named(["a"])),
        ])
        #expect(shrinker.runs == asked.count && Set(asked).count == asked.count, "a candidate was tried twice")
        for candidate in asked {
            #expect(candidate.steps.contains(.launch), "launch is never removed")
            let settles = candidate.steps.contains { if case .waitSettled = $0 { true } else { false } }
            #expect(settles || !candidate.steps.contains(.request(ScenarioRequest("clear", name: "a"))),
                    "a download's last wait to settle goes only with its request")
            #expect(try ScenarioFile.parse(yaml: candidate.yaml) == candidate, "an invalid candidate")
        }
    }

    @Test func wholeEventsGoFirst() throws {
        var shrinker = ChaosShrinker(Self.file, maximumRuns: 10)
        let firstCandidate = shrinker.next()
        let first = try #require(firstCandidate)
        // The first candidate drops the first half of the units: the steps before the
        // first note one by one (launch stays), then whole events.
        shrinker.record(stillFails: false)
        let secondCandidate = shrinker.next()
        let second = try #require(secondCandidate)
        #expect(first.steps.first == .launch && first.steps.contains(.note("event 1")))
        #expect(second.steps == Array(Self.file.steps[..<5]) + [.waitSettled(.named(["a", "protected"]))],
                "the second half (every event) went whole, but for the last wait to settle")
    }

    @Test func itStopsAtItsBoundOfRuns() {
        let shrinker = ChaosShrinker.shrink(Self.file, maximumRuns: 3) { _ in false }
        #expect(shrinker.stop == .runBudget && shrinker.runs == 3)
        #expect(shrinker.best == Self.file, "nothing that passes is kept")
    }

    @Test func aGeneratedScenarioShrinksToAValidFile() throws {
        let generator = ChaosGenerator(profileName: "flaky-wifi")
        let kills: (ScenarioFile) -> Bool = { $0.steps.contains { if case .kill = $0 { true } else { false } } }
        let file = try #require((1...50).lazy.map { generator.scenario(seed: $0) }.first(where: kills))
        let kill = try #require(file.steps.first { if case .kill = $0 { true } else { false } })
        let shrinker = ChaosShrinker.shrink(file, maximumRuns: 200) { $0.steps.contains(kill) }
        #expect(shrinker.best.steps == [.launch, kill])
        #expect(shrinker.stop == .minimal)
        // What it needs of the app shrinks with it.
        #expect(ChaosNeeds.of(shrinker.best.steps).count == 2 && ChaosNeeds.of(file.steps).count > 2)
    }

    @Test func timeRunningOutStopsIt() {
        var shrinker = ChaosShrinker(Self.file, maximumRuns: 10)
        shrinker.outOfTime()
        let candidate = shrinker.next()
        #expect(candidate == nil && shrinker.stop == .timeBudget)
    }

    // MARK: Seeds and failures

    @Test(arguments: [("7", [7]), ("1..4", [1, 2, 3, 4]), ("3,9,12", [3, 9, 12]), ("1..3, 2, 9", [1, 2, 3, 9])] as [(String, [UInt64])])
    func seedsAreOneARangeOrAList(text: String, seeds: [UInt64]) throws {
        #expect(try ChaosSeeds.parse(text) == seeds)
    }

    @Test(arguments: ["", "x", "5..2", "1,,2", "-3", "1..2..3", "0..99999"])
    func badSeedsSayHowToWriteThem(text: String) {
        #expect(throws: ChaosInputError.self) { try ChaosSeeds.parse(text) }
    }

    @Test func aFailureIsMatchedByItsFirstPropertyOrItsKindOfError() throws {
        let verdicts = [Verdict(property: "crash-recovery", outcome: .failed, summary: "x"),
                        Verdict(property: "integrity", outcome: .failed, summary: "y")]
        let failed = ScenarioResult(name: "s", summary: "s", verdicts: verdicts, metrics: ScenarioMetrics(),
                                    startNanoseconds: 0, endNanoseconds: 1)
        let failure = try #require(ChaosFailure(failed))
        #expect(failure.target == "crash-recovery" && failure.shows("integrity") && !failure.shows("liveness"))
        let stuck = ScenarioResult(name: "s", summary: "s", verdicts: [], metrics: ScenarioMetrics(), startNanoseconds: 0,
                                   endNanoseconds: 1, error: "timed out waiting for clear settled or gone")
        #expect(ChaosFailure(stuck)?.target == "error: timed out")
        #expect(ChaosFailure(ScenarioResult(name: "s", summary: "s", verdicts: [], metrics: ScenarioMetrics(),
                                            startNanoseconds: 0, endNanoseconds: 1)) == nil)
    }
}
