import AppProtocol
import BenchCore
@testable import ResilienceHarness
import Testing

/// The scenario file format: what it reads, what it writes back, and where and why it
/// refuses a file.
@Suite struct ScenarioFileParserTests {
    static let header = """
        name: sample
        summary: A sample.

        """

    func parse(_ steps: String, header: String = Self.header) throws -> ScenarioFile {
        try ScenarioFile.parse(yaml: header + steps, file: "sample.yaml")
    }

    /// The error `yaml` gives.
    func failure(_ yaml: String) -> ScenarioFileError? {
        do {
            _ = try ScenarioFile.parse(yaml: yaml, file: "sample.yaml")
            return nil
        } catch { return error }
    }

    @Test func defaultsApplyWhenKeysAreLeftOut() throws {
        let file = try parse("steps:\n  - launch\n")
        #expect(file == ScenarioFile(name: "sample", summary: "A sample.", steps: [.launch]))
        #expect(file.focus == .wifi && file.targetSeconds == 8 && file.minimumCrashRestarts == 0)
    }

    @Test func everyStepKindReadsAndWritesBack() throws {
        let file = ScenarioFile(
            name: "every-step", summary: "Every step kind, with options off their defaults.",
            asserts: ["integrity", "liveness"], needs: [.pause, .licenses], focus: .cellular, targetSeconds: 12.5,
            minimumCrashRestarts: 2,
            preconditions: [.outageHitATransfer(.blackhole), .killsWithBytesInFlight(2), .relaunchInterrupting(.crash), .offlineInspection],
            steps: [
                .mark("start"), .slowLicenseServer(.milliseconds(1500)), .up(.wifi), .up(.cellular, pathUpdate: .late(.seconds(2))),
                .waitForPath([.wifi, .cellular], timeout: .seconds(3)), .launch, .setAllowsCellular(false),
                .request(ScenarioRequest("clear", name: "a", rentalSeconds: 30, allowsCellular: true)),
                .request(ScenarioRequest("protected")),
                .wait(ScenarioWait(until: .progress("a", .atLeast(0.25)))),
                .wait(ScenarioWait(
                    until: .any([
                        .progress("protected", .above(0)), .state("a", [.suspended(.network), .failed]), .state("a", [.downloaded]),
                        .segmentsSinceLaunch(.random(2...6)), .segmentsSinceLaunch(.exactly(4)), .segments("a", atLeast: 3),
                        .settled(.all), .settled(.named(["a", "protected"])),
                    ]),
                    label: "crash 1: under way", timeout: .milliseconds(2500), optional: true)),
                .down(.wifi, mode: .blackhole, pathUpdate: .withheld), .down(.cellular), .waitForPath([]),
                .user(.pause, download: "a"), .hold(.nanoseconds(1_500_001)), .user(.resume, download: "a"),
                .holdUntil(ScenarioHoldUntil(mark: "start", plus: .duration(.seconds(4)))),
                .holdUntil(ScenarioHoldUntil(mark: "start", plus: .profileDuration, atMost: .seconds(180), orSettled: .all)),
                .holdUntil(ScenarioHoldUntil(mark: "start", orSettled: .named(["a"]))),
                .prepareForBackground, .background, .foreground, .waitForMediaResponse(),
                .waitForMediaResponse(timeout: .seconds(5)), .kill(.crash), .kill(.rebootWhileSuspended, inForeground: false),
                .requestSpare(["large", "large-b"]), .requestSpare(["multilang"], segments: 3), .cancelIfUnsettled("a"),
                .waitSettled(.all), .waitSettled(.named(["a"]), timeout: .seconds(60)), .user(.cancel, download: "protected"),
                .user(.delete, download: "a"), .note("null"), .note("crash 2 of 3: SIGKILL # not a comment"), .note(""),
                .inspect(.all), .inspect(.named(["a", "protected"])), .inspect(.named([])),
            ])
        let yaml = file.yaml
        #expect(try ScenarioFile.parse(yaml: yaml) == file, "\(yaml)")
    }

    @Test func aStepIsABareKindOrAKindKeyWithOptions() throws {
        let file = try parse("""
            steps:
              - launch
              - wait-for-media-response:
                timeout: 5s
              - request: clear
                as: movie
                rental-seconds: 12
              - wait: {progress: movie, at-least: 25%}
                label: movie at 25 %
            """)
        #expect(file.steps == [
            .launch, .waitForMediaResponse(timeout: .seconds(5)),
            .request(ScenarioRequest("clear", name: "movie", rentalSeconds: 12)),
            .wait(ScenarioWait(until: .progress("movie", .atLeast(0.25)), label: "movie at 25 %")),
        ])
    }

    @Test func noOptionOfAStepIsAlsoAStepKind() {
        // A step's kind is the one key of its mapping that names a kind: an option with
        // a kind's name would make a step look like two.
        let kinds = Set(ScenarioStepParser.kinds.map(\.name))
        for kind in ScenarioStepParser.kinds {
            #expect(Set(kind.options).isDisjoint(with: kinds), "\(kind.name) takes \(kind.options)")
        }
    }

    // MARK: Errors, each with its line

    @Test func anUnknownTopLevelKeyNamesItsLineAndTheNearestKey() throws {
        let error = try #require(failure("name: sample\nsummary: s\nasert: [integrity]\nsteps: [launch]\n"))
        #expect(error.kind == .unknownKey)
        #expect(error.line == 3)
        #expect(error.description.hasPrefix("sample.yaml:3:1: asert: unknown key 'asert'"), "\(error)")
        #expect(error.reason.contains("Did you mean 'asserts'?"), "\(error)")
    }

    @Test func anUnknownOptionOfAStepNamesTheOptionsItTakes() throws {
        let error = try #require(failure(Self.header + "steps:\n  - launch\n  - request: clear\n    rental: 12\n"))
        #expect(error.kind == .unknownKey)
        #expect(error.line == 6)
        #expect(error.keyPath == "steps[1].rental")
        #expect(error.reason.contains("takes as, rental-seconds, allows-cellular"), "\(error)")
    }

    @Test func anUnknownStepSuggestsTheNearestKind() throws {
        let error = try #require(failure(Self.header + "steps:\n  - launch\n  - wiat: {settled: all}\n"))
        #expect(error.kind == .unknownStep)
        #expect(error.line == 5)
        #expect(error.reason.contains("unknown step 'wiat'. Did you mean 'wait'?"), "\(error)")
    }

    @Test func anUnknownTriggerIsAnUnknownStepKind() throws {
        let error = try #require(failure(Self.header + "steps:\n  - request: clear\n  - wait: {progres: clear, at-least: 1}\n"))
        #expect(error.kind == .unknownStep)
        #expect(error.line == 5)
        #expect(error.reason.contains("Did you mean 'progress'?"), "\(error)")
    }

    @Test func aBadDurationSaysWhatADurationLooksLike() throws {
        let error = try #require(failure(Self.header + "steps:\n  - launch\n  - wait-for-path: [wifi]\n    timeout: 3 mins\n"))
        #expect(error.kind == .badDuration)
        #expect(error.line == 6)
        #expect(error.keyPath == "steps[1].timeout")
        #expect(error.reason.contains("expected a duration like"), "\(error)")
        let late = try #require(failure(Self.header + "steps:\n  - up: wifi\n    path-update: late soon\n"))
        #expect(late.kind == .badDuration && late.line == 5)
    }

    @Test func anUnknownPropertyListsTheProperties() throws {
        let error = try #require(failure("name: sample\nsummary: s\nasserts:\n  - integrity\n  - integrty\nsteps: [launch]\n"))
        #expect(error.kind == .unknownProperty)
        #expect(error.line == 5)
        #expect(error.keyPath == "asserts[1]")
        #expect(error.reason.contains("did you mean 'integrity'?") && error.reason.contains("liveness"), "\(error)")
    }

    @Test func anUnknownCapabilityListsTheCapabilities() throws {
        let error = try #require(failure("name: sample\nsummary: s\nneeds: [licenses, pausing]\nsteps: [launch]\n"))
        #expect(error.kind == .unknownCapability)
        #expect(error.line == 3)
        #expect(error.reason.contains("cancelAndDelete"), "\(error)")
    }

    @Test func anUnknownPreconditionListsThePreconditions() throws {
        let error = try #require(failure("name: sample\nsummary: s\npreconditions:\n  - offline-inspection\n  - outage-hit: reset\nsteps: [launch]\n"))
        #expect(error.kind == .unknownPrecondition)
        #expect(error.line == 5)
        #expect(error.reason.contains("outage-hit-a-transfer"), "\(error)")
        let missing = try #require(failure("name: sample\nsummary: s\npreconditions: [kills-with-bytes-in-flight]\nsteps: [launch]\n"))
        #expect(missing.kind == .missingKey && missing.line == 3 && missing.reason.contains("a number of kills"), "\(missing)")
    }

    @Test func aValueOfTheWrongTypeSaysWhatWasExpected() throws {
        let list = try #require(failure(Self.header + "steps:\n  - launch\n  - hold: [2s]\n"))
        #expect(list.kind == .wrongType)
        #expect(list.line == 5)
        #expect(list.reason.contains("found a list"), "\(list)")
        let number = try #require(failure("name: sample\nsummary: s\ntarget-seconds: soon\nsteps: [launch]\n"))
        #expect(number.kind == .wrongType && number.line == 3)
        let bool = try #require(failure(Self.header + "steps:\n  - set-allows-cellular: yes please\n"))
        #expect(bool.kind == .wrongType && bool.line == 4)
        let bare = try #require(failure(Self.header + "steps:\n  - hold\n"))
        #expect(bare.kind == .wrongType && bare.reason.contains("hold: 1.5s"), "\(bare)")
    }

    @Test func aDownloadNamedBeforeItWasRequestedIsRefused() throws {
        let error = try #require(failure(Self.header + "steps:\n  - request: clear\n  - pause: movie\n"))
        #expect(error.kind == .invalidValue)
        #expect(error.line == 5)
        #expect(error.reason.contains("no download named 'movie'") && error.reason.contains("Requested so far: clear"), "\(error)")
        let twice = try #require(failure(Self.header + "steps:\n  - request: clear\n  - request: clear\n"))
        #expect(twice.kind == .invalidValue && twice.line == 5 && twice.reason.contains("as: NAME"), "\(twice)")
    }

    @Test func aMarkMustBeMadeBeforeAHoldUntilIt() throws {
        let error = try #require(failure(Self.header + "steps:\n  - hold-until: start\n    plus: 4s\n  - mark: start\n"))
        #expect(error.kind == .invalidValue && error.line == 4)
        #expect(error.reason.contains("- mark: start"), "\(error)")
    }

    @Test func anUnknownVideoInterfaceOrStateSuggestsTheNearest() throws {
        let video = try #require(failure(Self.header + "steps:\n  - request: claer\n"))
        #expect(video.kind == .invalidValue && video.line == 4 && video.reason.contains("did you mean 'clear'?"), "\(video)")
        let interface = try #require(failure(Self.header + "steps:\n  - up: wfi\n"))
        #expect(interface.kind == .invalidValue && interface.reason.contains("did you mean 'wifi'?"), "\(interface)")
        let state = try #require(failure(Self.header + "steps:\n  - request: clear\n  - wait: {state: clear, is: done}\n"))
        #expect(state.kind == .invalidValue && state.line == 5 && state.reason.contains("suspended(network)"), "\(state)")
    }

    @Test func malformedYAMLAndMissingKeysAreLocated() throws {
        let malformed = try #require(failure("name: sample\nsummary: [unclosed\nsteps: [launch]\n"))
        #expect(malformed.kind == .malformedYAML && malformed.line != nil, "\(malformed)")
        let duplicate = try #require(failure(Self.header + "steps:\n  - up: wifi\n    up: cellular\n"))
        #expect(duplicate.kind == .malformedYAML && duplicate.reason.contains("duplicate key 'up'"), "\(duplicate)")
        let missing = try #require(failure("name: sample\nsteps: [launch]\n"))
        #expect(missing.kind == .missingKey && missing.keyPath == "summary", "\(missing)")
    }
}
