import AppProtocol
import BenchCore
import Foundation
import ResilienceHarness
import Testing

/// Apps that break the protocol, run by the real harness (origin, conditioner, the app
/// as a child process): each break ends its scenario with the documented `protocol
/// error: …` (the line, what is wrong, the schema path), what was recorded before it
/// stays in the trace, and the next scenario of the run still plays.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ProtocolBreakTests {
    /// Launches the app, asks for one download, and waits (for a break that ends it, or
    /// for the app's first progress when `expectBreak` is false).
    static func probe(_ name: String, expectBreak: Bool = true) -> Scenario {
        Scenario(name: name, summary: "A protocol probe.", asserts: []) { s in
            await s.setInterface(.wifi, up: true)
            try await s.waitForPath([.wifi])
            try await s.launch()
            let token = try await s.request("clear")
            try await s.wait("the app's first progress", timeout: .seconds(20)) { $0.progress(token) > 0 }
            if expectBreak { try await s.wait("the protocol to break", timeout: .seconds(20)) { _ in false } }
        }
    }

    static func run(_ app: AppCommandLine, _ scenarios: [Scenario], helloTimeout: Duration = .seconds(30)) async -> HarnessRun {
        let options = HarnessOptions(
            profile: HarnessMisbehaviorTests.profile, profilePath: "(test)", seed: 3, timeLimit: .seconds(60), app: app,
            helloTimeout: helloTimeout)
        return await HarnessRunner.run(scenarios, options: options)
    }

    @Test(arguments: [
        ("garbage", "protocol error: line 6 of the app's stdout: the line is not JSON (schema path # in docs/app-protocol.schema.json); the line: downloading 25 %"),
        ("fraction", "protocol error: line 6 of the app's stdout: field /fraction: 1.5 is above the maximum 1 (schema path #/$defs/event/oneOf/2/properties/fraction in docs/app-protocol.schema.json)"),
        ("unknown-id", "protocol error: line 6 of the app's stdout: a reply to id 999, which the harness never sent or which was answered already"),
    ])
    func aBadLineEndsItsScenarioKeepsWhatWasRecordedAndTheRunGoesOn(_ mode: String, error expected: String) async throws {
        let fake = try FakeApp()
        defer { fake.remove() }
        let run = await Self.run(fake.app(mode), [Self.probe("probe-break"), Self.probe("probe-ok", expectBreak: false)])
        let broken = try #require(run.report.scenarios.first)
        #expect(broken.error?.hasPrefix(expected) == true, "\(broken.error ?? "no error")")
        #expect(!broken.passed)
        // Recorded before the bad line: the app's first progress, and the violation noted.
        let window = run.trace.filter { $0.t >= broken.startNanoseconds && $0.t <= broken.endNanoseconds }
        #expect(window.contains { $0.event == .agent(.progress(download: "d1", selection: "video", fraction: 0.25)) })
        #expect(window.contains { if case .harness(.note(let text)) = $0.event { text.hasPrefix(expected) } else { false } })
        // The next scenario of the run still played, with a new app process.
        let next = try #require(run.report.scenarios.last)
        #expect(run.report.scenarios.count == 2 && next.name == "probe-ok")
        #expect(next.error == nil, "\(next.error ?? "")")
    }

    @Test func anAppThatNeverAnswersHelloEndsItsScenarioWithTheDocumentedError() async throws {
        let fake = try FakeApp()
        defer { fake.remove() }
        let run = await Self.run(fake.app("no-hello"), [Self.probe("probe-break")], helloTimeout: .seconds(2))
        let error = try #require(run.report.scenarios.first?.error)
        #expect(error.hasPrefix("protocol error: no answer to hello within 2 s"), "\(error)")
    }

    @Test func anAppOfAnotherProtocolVersionEndsItsScenarioWithTheDocumentedError() async throws {
        let fake = try FakeApp()
        defer { fake.remove() }
        let run = await Self.run(fake.app("version"), [Self.probe("probe-break")])
        let error = try #require(run.report.scenarios.first?.error)
        #expect(error == "protocol error: the app does not speak protocol 1: it speaks protocol 2; see docs/app-protocol.md")
    }

    /// A scenario needing a capability the app's hello lacks is not played: reported
    /// unsupported, with no verdict, never passed; one it has everything for plays.
    @Test func aScenarioNeedingAnUndeclaredCapabilityIsUnsupportedNeverPassed() async throws {
        let fake = try FakeApp()
        defer { fake.remove() }
        var needy = Self.probe("probe-needs-licenses", expectBreak: false)
        needy.needs = [.inspect, .licenses, .pause]
        var fine = Self.probe("probe-ok", expectBreak: false)
        fine.needs = [.inspect]
        let run = await Self.run(fake.app("caps:inspect,pause"), [needy, fine])
        let unsupported = try #require(run.report.scenarios.first)
        #expect(unsupported.unsupported == ["licenses"] && unsupported.unsupportedText == "unsupported: licenses")
        #expect(!unsupported.passed && unsupported.verdicts.isEmpty && unsupported.error == nil)
        let played = try #require(run.report.scenarios.last)
        #expect(played.unsupported == nil && played.error == nil, "\(played.error ?? "")")
        #expect(run.report.unsupportedScenarios.map(\.name) == ["probe-needs-licenses"])
        #expect(run.report.run.app == "fake caps:inspect,pause")
        #expect(run.report.run.agent == fake.app("caps:inspect,pause").description)
    }
}

/// What the app writes on its stderr is kept in the scenario's result (the report writer
/// puts it beside the report: `ReportWriterTests`), not in the temporary directory.
@Suite(.serialized, .timeLimit(.minutes(5))) struct AppStderrTests {
    @Test func eachLaunchsStderrGoesToTheResultAndNothingStaysInTheTemporaryDirectory() async throws {
        let fake = try FakeApp()
        defer { fake.remove() }
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()))
        // A name of its own: the storage path is named after the scenario, the process and
        // the seed, and ProtocolBreakTests' `probe-ok` may be playing beside it.
        let run = await ProtocolBreakTests.run(fake.app("stderr"), [ProtocolBreakTests.probe("probe-stderr", expectBreak: false)])
        let result = try #require(run.report.scenarios.first)
        #expect(result.error == nil, "\(result.error ?? "")")
        let log = try #require(result.stderr?.first)
        #expect(result.stderr?.count == 1 && log.launch == 1)
        #expect(log.tail == "fake app: a line on stderr after hello (clean)\n" && log.bytes == log.tail.utf8.count)
        // The scenario's storage and its launches' stderr files (`deadzone-probe-stderr-<pid>-<seed>…`).
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())).subtracting(before)
        #expect(!left.contains { $0.hasPrefix("deadzone-probe-stderr-\(getpid())-") }, "left behind: \(left.sorted())")
    }
}
