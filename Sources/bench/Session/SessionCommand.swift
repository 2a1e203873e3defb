import ArgumentParser
import BenchCore
import BenchReports
import BenchResults
import ControlAPI
import FixtureOrigin
import Foundation
import ResilienceHarness
import Synchronization

/// `bench session`: one session an outside test drives through the API, recorded and judged.
struct SessionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "Record one session an outside test drives through the API, then judge it.",
        discussion: """
            Starts the origin (fixture videos, and --catalog streams), the conditioner under the profile and the \
            control API, and records one trace. The test starts its app (which speaks no protocol) pointed at an \
            interface (GET /session says where, and where the app keeps its downloads), changes the network through \
            the API (toxiproxy's and /deadzone's endpoints) and announces what it made the app and the user do \
            (POST /session/announce). With --agent (or --launch) the session launches an app that speaks the app \
            protocol instead, and the test plays what the user and the OS do as scenario steps (POST /session/steps); \
            every property is then judged, its word checked as in a run. POST /session/end, or Ctrl-C, ends it: the \
            properties are judged on what the world saw, the report is written, and the end's answer holds the \
            verdicts. See docs/control-api.md.
            Example: swift run bench session --api 127.0.0.1:8474 --profile Profiles/fast-4g.yaml --out Reports/session
            """
    )

    @Option(help: "The network profile (YAML); its timeline plays from the start.")
    var profile: String = "Profiles/fast-4g.yaml"

    @Option(name: .customLong("api"), help: "Serve the API on HOST:PORT (or PORT, on 127.0.0.1; port 0 picks one).")
    var api: String = "127.0.0.1:8474"

    @Option(name: .customLong("api-token"), help: ArgumentHelp(
        "A token every API request must carry (Authorization: Bearer TOKEN); needed to bind beyond loopback.",
        discussion: "Also read from DEADZONE_API_TOKEN."))
    var apiToken: String?

    @Option(name: .customLong("catalog"), help: ArgumentHelp(
        "A catalog directory `bench record` wrote, served beside the fixture videos (repeatable).", valueName: "DIR"))
    var catalogs: [String] = []

    @Option(help: "The report directory (default: Reports/<timestamp>-session/).")
    var out: String?

    @Option(help: "The longest the session may record (e.g. 10m); it is judged then, as at its end.")
    var duration: String = "1h"

    @Option(help: "Override the profile's seed.")
    var seed: UInt64?

    @Option(name: .customLong("ready-file"), help: "Write the API's URL to this file once the session records (for scripts).")
    var readyFile: String?

    @Option(help: ArgumentHelp(
        "An app that speaks the app protocol, launched by the session: a builtin name (deadzone, python, a misbehaving variant) or a command line.",
        discussion: "As bench run's --agent (docs/app-protocol.md). The test then plays steps (POST /session/steps) instead of announcing.",
        valueName: "command"))
    var agent: String?

    @OptionGroup var launching: LaunchOptions

    /// Whether the session launches an app that speaks the protocol.
    var launchesApp: Bool { agent != nil || launching.launch != nil || launching.agentListen != nil }

    func validate() throws {
        guard let address = APIAddress(parsing: api) else {
            throw ValidationError("--api expects HOST:PORT or PORT, e.g. 127.0.0.1:8474 (got '\(api)')")
        }
        if !ControlServer.isLoopback(address.host), token == nil {
            throw ValidationError("--api \(api) would be reachable beyond this machine: give --api-token TOKEN (or DEADZONE_API_TOKEN), or bind 127.0.0.1")
        }
        do {
            guard try Units.parseDuration(duration) > .zero else { throw ValidationError("--duration must be positive") }
        } catch let error as ValidationError { throw error } catch {
            throw ValidationError("--duration: \(error)")
        }
    }

    var token: String? {
        apiToken ?? ProcessInfo.processInfo.environment["DEADZONE_API_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    func run() async throws {
        var loaded: Profile
        do { loaded = try Profile.load(contentsOf: profile) } catch { exitBadInput("\(error)") }
        if let seed { loaded.seed = seed }
        let limit = (try? Units.parseDuration(duration)) ?? .seconds(3600)
        // The session ends at --duration as at POST /session/end; the scenario's own time
        // limit, past it, only catches a judge that never ends.
        var options: HarnessOptions
        if launchesApp {
            var suite = SuiteRun(
                profilePath: profile, scenarioNames: [], seed: loaded.seed, timeLimitSeconds: limit.seconds + 600,
                misbehavior: nil, agentCommand: agent, progressOnStandardError: false)
            suite.launching = launching
            do {
                options = try suite.harnessOptions(profile: loaded, seed: loaded.seed)
                options.launch = try launching.appLaunch(app: options.app, agentGiven: agent != nil)
            } catch { exitBadInput(error.description) }
        } else {
            options = HarnessOptions(
                profile: loaded, profilePath: profile, seed: loaded.seed, timeLimit: limit + .seconds(600),
                app: AppCommandLine(executable: "(started by the test)"), agentName: "an app an outside test drives (no protocol)")
        }
        defer { options.launch?.listener?.close() }
        if !catalogs.isEmpty {
            do { options.recorded = try RecordedContent.load(catalogs, reservedIDs: Set(ScenarioFile.fixtureVideos)) } catch {
                exitBadInput("\(error)")
            }
        }
        let deadzone = DeadzoneService()
        options.conditionerObserver = deadzone.feed
        let address = APIAddress(parsing: api)!
        let readyFile = readyFile
        let server = Mutex<ControlServer?>(nil)
        let driver = SessionDriver(launchesApp: launchesApp, recordedVideos: Set(options.recorded.streams.map(\.video.id))) { context in
            deadzone.attach(context.conditioner) { kind, state, pathUpdate in
                context.driveInterface(kind, state, pathUpdate: pathUpdate)
            }
            // The app keeps its downloads there; the harness reads it at each announced kill.
            try? FileManager.default.createDirectory(atPath: context.storageDirectory, withIntermediateDirectories: true)
            let url = server.withLock { $0?.url } ?? ""
            print("recording: the app keeps its downloads in \(context.storageDirectory)")
            for (kind, endpoint) in context.conditioner.endpoints.sorted(by: { $0.key < $1.key }) { print("\(kind) \(endpoint)") }
            print("POST \(url)/session/end (or Ctrl-C) ends the session and judges it")
            fflush(nil)
            if let readyFile { try? Data((url + "\n").utf8).write(to: URL(fileURLWithPath: readyFile)) }
        }
        let started: ControlServer
        do {
            started = try await ControlServer.start(
                host: address.host, port: address.port, token: token,
                router: ControlRouter(toxiproxy: ToxiproxyService(allowsRemoteListen: token != nil), deadzone: deadzone,
                                      extra: SessionRoutes(driver: driver)))
        } catch { exitWithError("\(error)", code: 1) }
        server.withLock { $0 = started }
        print("session API on \(started.url)\(token == nil ? "" : " (token required)"); GET /session says where the app connects")
        fflush(nil)

        let scenario = Scenario(
            name: "session", summary: "A session an outside test drove through the API and announced.", asserts: [],
            interfacesStart: .asProfile
        ) { context in try await driver.play(context) }
        let interrupt = Task {
            await waitForInterrupt(orAfter: limit)
            if driver.requestEnd() { print("ending the session (Ctrl-C, or --duration \(duration))") }
        }
        var run = await HarnessRunner.run([scenario], options: options)
        interrupt.cancel()
        if !launchesApp {  // an app that spoke the protocol was judged on its word, as in a run
            for index in run.report.scenarios.indices {
                run.report.scenarios[index].verdicts = SessionVerdicts.withoutTheAppsWord(run.report.scenarios[index].verdicts)
            }
        }
        let directory = out ?? SummaryTable.defaultDirectory(profile: "session")
        let written: String
        do { written = try SuiteRun.write(run, comparison: nil, to: directory).reportHTML.path } catch {
            driver.finished(.object(["error": .string("the report could not be written: \(error)")]))
            await started.stop()
            exitWithError("the report could not be written to \(directory): \(error)", code: 1)
        }
        driver.finished(Self.answer(run.report, directory: directory))
        print("\n" + SummaryTable.render(run.report))
        print("\nreport: \(written)")
        if Self.judged(run.report) == 0 {
            print("nothing was judged: no property's situation happened (announce the downloads the app made, and its kills "
                + "and launches); a session that judged nothing does not pass")
        }
        await started.stop()
        if !Self.passed(run.report) { throw ExitCode(1) }
    }

    /// How many properties were judged (passed or failed).
    static func judged(_ report: RunReport) -> Int {
        report.scenarios.flatMap(\.verdicts).filter { $0.outcome != .notApplicable }.count
    }

    /// The run passed, and judged something: a session whose situations never happened is no pass.
    static func passed(_ report: RunReport) -> Bool { report.passed && judged(report) > 0 }

    /// The end's answer: where the report is and each property's outcome and summary.
    static func answer(_ report: RunReport, directory: String) -> ControlAPI.JSONValue {
        let scenario = report.scenarios.first
        var verdicts: [String: ControlAPI.JSONValue] = [:]
        for verdict in scenario?.verdicts ?? [] {
            verdicts[verdict.property] = .object([
                "outcome": .string(verdict.outcome.rawValue), "summary": .string(verdict.summary),
            ])
        }
        var fields: [String: ControlAPI.JSONValue] = [
            "report": .string(directory), "passed": .bool(passed(report)), "judged": .number(Double(judged(report))),
            "verdicts": .object(verdicts),
        ]
        if let error = scenario?.error { fields["error"] = .string(error) }
        return .object(fields)
    }
}
