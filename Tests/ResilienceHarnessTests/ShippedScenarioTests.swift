import AppProtocol
import BenchCore
import Foundation
@testable import ResilienceHarness
import Testing

/// The shipped scenario files declare what the Swift scenarios they replaced declared (the
/// three written for situation coverage, network-edges, origin-faults and early-edges,
/// and the two of the seams, pause-seams and failure-seams, what they were written to
/// declare), and play the same calls (the steps below are
/// those calls, in order). The profile's
/// timeline is played in two halves since the gate plays scenarios concurrently:
/// profile-timeline (from 20 s) and profile-timeline-late (from 1m45s).
@Suite struct ShippedScenarioTests {
    /// What the Swift declarations said (ScenarioSuite.swift before the files).
    struct Declared {
        var name: String
        var asserts: [String]
        var needs: [Capability]
        var preconditions: [String]
        var minimumCrashRestarts = 0
        var targetSeconds = 8.0
        var interfacesStart = InterfacesStart.heldDown
        var profileFrom = Duration.zero
    }

    /// In file-name order (`profile-timeline-late.yaml` sorts before `profile-timeline.yaml`).
    static let declared: [Declared] = [
        Declared(
            name: "auto-suspend-on-disconnect", asserts: ["auto-suspend-on-disconnect", "bounded-retries"],
            needs: [.licenses, .inspect], preconditions: DownMode.allCases.map { ScenarioPreconditions.outageHitATransfer($0).name }),
        Declared(
            name: "cellular-policy", asserts: ["cellular-policy", "integrity"], needs: [.cellularSetting, .inspect],
            preconditions: [ScenarioPreconditions.cellularOnlyDuringDownloads.name]),
        Declared(
            name: "crash-recovery", asserts: ["crash-recovery", "integrity", "cancel-delete-clean"],
            needs: [.crashRecovery, .relaunchAfterForceQuit, .licenses, .cancelAndDelete, .inspect],
            preconditions: [
                ScenarioPreconditions.killsWithBytesInFlight(3).name,
                ScenarioPreconditions.relaunchInterrupting(.userForceQuit).name,
                ScenarioPreconditions.relaunchInterrupting(.rebootWhileSuspended).name,
            ], minimumCrashRestarts: 3),
        Declared(
            name: "early-edges", asserts: ["crash-recovery", "integrity", "cellular-policy"],
            needs: [.licenses, .cellularSetting, .crashRecovery, .inspect],
            preconditions: [ScenarioPreconditions.relaunchInterrupting(.crash).name]),
        // The seams of docs/obligations.md, each situation a pair of the situation model.
        Declared(
            name: "failure-seams", asserts: ["license-before-background", "integrity", "liveness"],
            needs: [.licenses, .inspect],
            preconditions: [
                ScenarioPreconditions.situation(.originStatusFault, .midSegment).name,
                ScenarioPreconditions.situation(.bodyCut, .midSegment).name,
                ScenarioPreconditions.situation(.backgroundUnprepared, .license).name,
                ScenarioPreconditions.situation(.prepareForBackground, .license).name,
            ], targetSeconds: 6),
        Declared(
            name: "housekeeping",
            asserts: ["pause-holds", "cancel-delete-clean", "offline-playback", "expired-rental-refuses-playback", "integrity"],
            needs: [.pause, .cancelAndDelete, .licenses, .rentals, .inspect],
            preconditions: [
                ScenarioPreconditions.pauseDuringATransfer.name, ScenarioPreconditions.cancelOfAnIncompleteDownload.name,
                ScenarioPreconditions.offlineInspection.name, ScenarioPreconditions.inspectionAfterARentalExpired.name,
            ]),
        Declared(
            name: "license-before-background", asserts: ["license-before-background", "integrity"], needs: [.licenses, .inspect],
            preconditions: [ScenarioPreconditions.licenseExchangeBeforeBackground.name]),
        Declared(
            name: "network-edges", asserts: ["cellular-policy", "crash-recovery", "auto-suspend-on-disconnect", "integrity"],
            needs: [.cellularSetting, .crashRecovery, .inspect],
            preconditions: [
                ScenarioPreconditions.cellularOnlyDuringDownloads.name, ScenarioPreconditions.relaunchInterrupting(.crash).name,
            ], minimumCrashRestarts: 1, targetSeconds: 16),
        Declared(name: "origin-faults", asserts: ["integrity", "liveness"], needs: [.inspect], preconditions: []),
        Declared(
            name: "pause-seams", asserts: ["pause-holds", "crash-recovery", "cancel-delete-clean", "integrity"],
            needs: [.pause, .cancelAndDelete, .crashRecovery, .inspect],
            preconditions: [ScenarioPreconditions.pauseDuringATransfer.name] + [
                (Incident.downReset, SituationContext.paused), (.wifiBack, .paused), (.killCrash, .paused),
                (.resume, .offline), (.cancel, .paused), (.delete, .paused), (.delete, .midSegment),
            ].map { ScenarioPreconditions.situation($0.0, $0.1).name }),
        Declared(
            name: "profile-timeline-late", asserts: [], needs: [.cellularSetting, .cancelAndDelete, .inspect], preconditions: [],
            targetSeconds: 40, interfacesStart: .asProfile, profileFrom: .seconds(105)),
        Declared(
            name: "profile-timeline", asserts: [], needs: [.cellularSetting, .cancelAndDelete, .inspect], preconditions: [],
            targetSeconds: 45, interfacesStart: .asProfile, profileFrom: .seconds(20)),
    ]

    @Test func theDirectoryHoldsTheShippedScenariosInFileNameOrder() throws {
        let suite = try ShippedScenarios.suite()
        #expect(suite.entries.map(\.file.name) == Self.declared.map(\.name))
        for entry in suite.entries {
            #expect(URL(fileURLWithPath: entry.path).lastPathComponent == entry.file.name + ".yaml")
        }
    }

    @Test(arguments: declared.map(\.name))
    func eachFileDeclaresWhatTheSwiftScenarioDeclared(_ name: String) throws {
        let expected = try #require(Self.declared.first { $0.name == name })
        let scenario = try ShippedScenarios.named(name)
        #expect(scenario.asserts == expected.asserts)
        #expect(scenario.needs == expected.needs)
        #expect(scenario.preconditions.map(\.name) == expected.preconditions)
        #expect(scenario.minimumCrashRestarts == expected.minimumCrashRestarts)
        #expect(scenario.targetSeconds == expected.targetSeconds)
        #expect(scenario.interfacesStart == expected.interfacesStart)
        #expect(scenario.profileFrom == expected.profileFrom)
        #expect(scenario.focus == .wifi)
    }

    @Test(arguments: declared.map(\.name))
    func eachFileReadsBackFromItsYAML(_ name: String) throws {
        let file = try #require(try ShippedScenarios.suite().entries.first { $0.file.name == name }?.file)
        #expect(try ScenarioFile.parse(yaml: file.yaml) == file, "\(file.yaml)")
    }

    @Test func crashRecoveryPlaysTheSwiftScriptsCalls() throws {
        let file = try #require(try ShippedScenarios.suite().entries.first { $0.file.name == "crash-recovery" }?.file)
        let round: (RelaunchKind, String) -> [ScenarioStep] = { kind, note in
            [
                .wait(ScenarioWait(until: .any([.segmentsSinceLaunch(.random(2...6)), .settled(.all)]))),
                .requestSpare(["large", "large-b"]), .waitForMediaResponse(), .note(note), .kill(kind),
            ]
        }
        let reported = { (name: String, label: String) in
            ScenarioStep.wait(ScenarioWait(until: .state(name, [.failed]), label: label, timeout: .seconds(15), optional: true))
        }
        let twentyPercent = { (name: String) in
            ScenarioStep.wait(ScenarioWait(
                until: .any([.progress(name, .atLeast(0.2)), .state(name, [.downloaded])]), label: "\(name) at 20 %"))
        }
        let expected: [ScenarioStep] = [
            .up(.wifi), .waitForPath([.wifi]), .launch, .request(ScenarioRequest("clear")), .request(ScenarioRequest("protected")),
        ] + round(.crash, "crash 1 of 3: SIGKILL") + round(.memoryPressure, "crash 2 of 3: SIGKILL (killed for memory)")
            + round(.crash, "crash 3 of 3: SIGKILL") + [
                .waitSettled(.all), .inspect(.all),
                .request(ScenarioRequest("http-key")), twentyPercent("http-key"), .kill(.userForceQuit),
                reported("http-key", "the interrupted download reported failed"),
                .user(.delete, download: "http-key"), .inspect(.named(["http-key"])),
                .request(ScenarioRequest("multilang")), twentyPercent("multilang"), .background,
                .kill(.rebootWhileSuspended, inForeground: true),
                reported("multilang", "the download interrupted by the reboot reported failed"),
                .user(.delete, download: "multilang"), .inspect(.named(["multilang"])),
            ]
        #expect(file.steps == expected)
    }

    @Test func housekeepingResumesFourSecondsAfterThePauseAndInspectsPastTheRentalsExpiry() throws {
        let file = try #require(try ShippedScenarios.suite().entries.first { $0.file.name == "housekeeping" }?.file)
        let steps = file.steps
        let paused = try #require(steps.firstIndex(of: .mark("paused")))
        #expect(steps[paused - 1] == .wait(ScenarioWait(
            until: .state("kept", [.suspended(.user)]), label: "clear paused", timeout: .seconds(15))))
        let resume = try #require(steps.firstIndex(of: .user(.resume, download: "kept")))
        #expect(steps[resume - 1] == .holdUntil(ScenarioHoldUntil(mark: "paused", plus: .duration(.seconds(4)))))
        let rental = try #require(steps.firstIndex(of: .request(ScenarioRequest("protected", name: "rental", rentalSeconds: 12))))
        #expect(steps[rental - 1] == .mark("rental-requested"))
        #expect(steps.contains(.holdUntil(ScenarioHoldUntil(mark: "rental-requested", plus: .duration(.seconds(14))))))
    }

    @Test(arguments: ["profile-timeline", "profile-timeline-late"])
    func profileTimelineHoldsForTheProfilesWindowThenCancelsWhatIsUnfinished(_ name: String) throws {
        let file = try #require(try ShippedScenarios.suite().entries.first { $0.file.name == name }?.file)
        #expect(file.steps == [
            .mark("start"), .launch, .setAllowsCellular(false), .request(ScenarioRequest("large")), .setAllowsCellular(true),
            .request(ScenarioRequest("large-b")),
            .holdUntil(ScenarioHoldUntil(mark: "start", plus: .profileDuration, atMost: .seconds(85), orSettled: .all)),
            .cancelIfUnsettled("large"), .inspect(.named(["large"])), .cancelIfUnsettled("large-b"), .inspect(.named(["large-b"])),
        ])
        #expect(!file.drivesTheNetwork)
    }

    @Test func theFormatDocumentsExampleIsAValidScenario() throws {
        let docs = URL(fileURLWithPath: ShippedScenarios.directory).deletingLastPathComponent()
            .appendingPathComponent("docs/scenario-format.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let example = try #require(text.components(separatedBy: "```yaml\n").dropFirst().first?.components(separatedBy: "```").first)
        let file = try ScenarioFile.parse(yaml: example, file: "docs/scenario-format.md")
        #expect(file.name == "pause-on-cellular")
        #expect(file.steps.contains(.down(.wifi, mode: .blackhole, pathUpdate: .late(.seconds(2)))))
    }
}
