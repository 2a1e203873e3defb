import AppProtocol
import BenchCore
@testable import ResilienceHarness
import Testing

/// The chaos generator: the same seed gives the same file, every file is valid, and
/// over fifty seeds every situation the properties need comes up, none of them one a
/// correct app could not pass.
@Suite struct ChaosGeneratorTests {
    let generator = ChaosGenerator(profileName: "flaky-wifi")
    var files: [ScenarioFile] { (1...50).map { generator.scenario(seed: $0) } }

    @Test func theSameSeedGivesTheSameFileByteForByte() {
        for seed: UInt64 in [1, 7, 42, 12345] {
            #expect(generator.scenario(seed: seed).yaml == ChaosGenerator(profileName: "flaky-wifi").scenario(seed: seed).yaml)
        }
    }

    @Test func differentSeedsGiveDifferentSteps() {
        let steps = (1...30).map { generator.scenario(seed: $0).steps }
        #expect(Set(steps).count == steps.count)
    }

    @Test func theProfileNamesTheScenarioButDoesNotChangeItsSteps() {
        let other = ChaosGenerator(profileName: "3g").scenario(seed: 9)
        #expect(other.steps == generator.scenario(seed: 9).steps)
        #expect(other.summary.contains("profile 3g") && other.name == "chaos-9")
    }

    @Test func everyFileReadsBackAsTheSameValidScenario() throws {
        for file in files {
            #expect(try ScenarioFile.parse(yaml: file.yaml, file: "\(file.name).yaml") == file, "\(file.yaml)")
            #expect(file.asserts.isEmpty && file.preconditions.isEmpty, "a chaos scenario claims nothing")
        }
    }

    @Test func overFiftySeedsEverySituationComesUp() {
        let all = files.flatMap(\.steps)
        for mode in DownMode.allCases {
            #expect(all.contains { if case .down(.wifi, mode, _) = $0 { true } else { false } }, "no \(mode) outage")
        }
        for kind in RelaunchKind.allCases where kind != .clean {
            #expect(all.contains { if case .kill(kind, _) = $0 { true } else { false } }, "no \(kind) kill")
        }
        #expect(all.contains { if case .down(_, _, .withheld) = $0 { true } else { false } }, "no withheld path update")
        #expect(all.contains { if case .down(_, _, .late) = $0 { true } else { false } }, "no late path update")
        #expect(files.contains { Self.hasHandoff($0.steps) }, "no handoff")
        #expect(files.contains { Self.hasBackgroundWithALicenseDue($0.steps) }, "no background with a protected download")
        #expect(all.contains(where: { if case .userIfInFlight(.pause, _) = $0 { true } else { false } }), "no pause")
        #expect(all.contains(where: { if case .userIfInFlight(.cancel, _) = $0 { true } else { false } }), "no cancel")
        #expect(all.contains(where: { if case .setAllowsCellular = $0 { true } else { false } }), "no cellular setting")
        #expect(all.contains(where: { if case .originFault = $0 { true } else { false } }), "no origin fault")
        #expect(all.contains(where: { if case .request(let r) = $0 { r.rentalSeconds != nil } else { false } }), "no rental")
    }

    @Test func noFileAsksWhatACorrectAppCouldNotDo() {
        Self.expectNothingImpossible(in: files)
    }

    // MARK: Helpers

    /// What a correct app could not do, asked of none of `files` (seeds' or mutants').
    static func expectNothingImpossible(in files: [ScenarioFile]) {
        for file in files {
            let steps = file.steps
            let requests = steps.compactMap { if case .request(let r) = $0 { r.video } else { nil } }
            #expect(Set(requests).count == requests.count, "\(file.name): a video requested twice")
            #expect(!requests.contains("online-only"), "\(file.name): online-only cannot be downloaded")
            for (index, step) in steps.enumerated() {
                switch step {
                case .background:
                    #expect(index > 0 && steps[index - 1] == .prepareForBackground, "\(file.name): background without prepare")
                case .up(_, .withheld):
                    Issue.record("\(file.name): an interface came back with its path update withheld")
                case .originFault(let fault):
                    if case .status = fault.fault { #expect((fault.count ?? .max) <= 3, "\(file.name): a status fault may fail a download") }
                    if case .truncate = fault.fault { #expect((fault.count ?? .max) <= 3, "\(file.name): a truncation may fail a download") }
                    #expect(fault.duration != nil, "\(file.name): a fault window must close")
                case .userIfInFlight(.pause, let name):
                    #expect(steps[index...].contains(.userIfInFlight(.resume, download: name)), "\(file.name): \(name) paused for good")
                case .kill(.userForceQuit, _), .kill(.rebootWhileSuspended, _):
                    Self.expectEarlierDownloadsSettled(before: index, in: file)
                case .user(let action, _):
                    #expect(action == .delete, "\(file.name): \(action) of a download that may have settled")
                default: break
                }
            }
            Self.expectItEndsBySettlingAndInspecting(file)
        }
    }

    /// WiFi goes down while cellular is up.
    static func hasHandoff(_ steps: [ScenarioStep]) -> Bool {
        var up: Set<InterfaceKind> = []
        for step in steps {
            switch step {
            case .up(let kind, _): up.insert(kind)
            case .down(let kind, _, _):
                if kind == .wifi, up.contains(.cellular) { return true }
                up.remove(kind)
            default: break
            }
        }
        return false
    }

    /// The app goes to the background right after a protected video was requested.
    static func hasBackgroundWithALicenseDue(_ steps: [ScenarioStep]) -> Bool {
        steps.indices.contains { index in
            guard steps[index] == .background, index >= 2, case .request(let request) = steps[index - 2] else { return false }
            return ChaosCatalog.protected.contains(request.video)
        }
    }

    /// Before a force-quit or a reboot, every download requested earlier is waited for
    /// until it settled or went: those an earlier crash interrupted must complete.
    static func expectEarlierDownloadsSettled(before kill: Int, in file: ScenarioFile) {
        let steps = file.steps[..<kill]
        guard let fresh = steps.lastIndex(where: { if case .request = $0 { true } else { false } }) else {
            Issue.record("\(file.name): a force-quit with no download to interrupt")
            return
        }
        let earlier = steps[..<fresh].compactMap { if case .request(let r) = $0 { r.name } else { nil } }
        let settled = steps[..<fresh].compactMap { step -> String? in
            guard case .wait(let wait) = step, case .state(let name, let states) = wait.until, !wait.optional,
                Set(states) == [.downloaded, .failed, .notDownloaded] else { return nil }
            return name
        }
        #expect(Set(earlier).isSubset(of: settled), "\(file.name): a force-quit before \(earlier) settled")
    }

    static func expectItEndsBySettlingAndInspecting(_ file: ScenarioFile) {
        let names = file.steps.compactMap { if case .request(let r) = $0 { r.name } else { nil } }
        guard let inspect = file.steps.firstIndex(of: .inspect(.all)) else {
            Issue.record("\(file.name): never inspects its downloads")
            return
        }
        let waits = file.steps[inspect - names.count ..< inspect]
        #expect(waits.map { step -> String? in
            if case .wait(let wait) = step, case .state(let name, _) = wait.until, !wait.optional { name } else { nil }
        } == names, "\(file.name): does not wait for every download before the inspection")
    }
}
