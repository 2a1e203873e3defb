import BenchCore
import EngineAgent
import FixtureOrigin
import Foundation
import AppProtocol
import ResilienceHarness
import Synchronization
import TestSupport
import Testing

/// The `bench` executable `swift build` put beside the test bundle.
func benchExecutable() throws -> String { try builtExecutable("bench") }

/// The executable product `name` that `swift build` put beside the test bundle.
func builtExecutable(_ name: String) throws -> String {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for candidate in [directory, directory.deletingLastPathComponent()] {
        let path = candidate.appendingPathComponent(name).path
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    throw BenchMissing(directory: directory.path, name: name)
}

/// Deadzone's engine as the app under test: `bench agent` with `options`.
func benchAgent(_ options: AgentOptions = AgentOptions()) throws -> AppCommandLine {
    AppCommandLine(executable: try benchExecutable(), arguments: options.benchArguments)
}

/// What a `bench` command printed and its exit status.
struct BenchOutcome {
    var status: Int32
    var stdout: String
    var stderr: String
    /// stdout then stderr.
    var output: String { stdout + stderr }
}

/// Runs `bench arguments` to its end, in `directory` (default: this process's), and
/// collects what it wrote on stdout and on stderr (through files: no pipe to fill up).
/// The wait happens on a Dispatch thread, not on one of the few threads of Swift's
/// cooperative pool: a bench run lasts up to a minute, and blocking a pool thread that
/// long would stall every other test's async work until it timed out.
func runBench(_ arguments: [String], in directory: String? = nil) async throws -> BenchOutcome {
    let run = try await ChildProcess.run(try benchExecutable(), arguments, directory: directory)
    return BenchOutcome(status: run.status, stdout: run.stdout, stderr: run.stderr)
}

struct BenchMissing: Error, CustomStringConvertible {
    var directory: String
    var name = "bench"
    var description: String {
        "no \(name) executable near \(directory): run `swift build --build-tests` before `swift test --skip-build`"
    }
}

/// The events one agent reported, collected on its monitor thread.
final class AgentEventLog: Sendable {
    private let entries = Mutex<[AppEvent]>([])

    func append(_ event: AppEvent) { entries.withLock { $0.append(event) } }

    var events: [AppEvent] { entries.withLock { $0 } }

    /// Polls until `condition` holds over the events, for up to `seconds`; whether it did.
    func wait(seconds: Double = 60, until condition: ([AppEvent]) -> Bool) async -> Bool {
        await pollUntil(within: seconds, every: .milliseconds(20)) { condition(events) }
    }

    /// The states `download` was reported in, in order (targets of its state changes).
    func states(of download: String) -> [AppState] {
        events.compactMap { if case .stateChanged(download, _, let to) = $0 { to } else { nil } }
    }

    /// The (stream, index, path) of each segment of `download` reported stored.
    func stored(_ download: String) -> [(stream: String, index: Int, path: String)] {
        events.compactMap {
            if case .segmentStored(download, let stream, let index, _, let path) = $0 { (stream, index, path) } else { nil }
        }
    }

    func isFinished(_ download: String) -> Bool {
        events.contains { if case .finished(download, _) = $0 { true } else { false } }
    }

    func launched(after: RelaunchKind) -> Bool {
        events.contains { if case .launched(_, after) = $0 { true } else { false } }
    }
}

/// A real origin, a storage directory, and the agents launched on it (killed at the end).
final class AgentFixture: Sendable {
    let server: OriginServer
    let storage: String
    private let agents = Mutex<[AgentProcess]>([])

    init(server: OriginServer) throws {
        self.server = server
        storage = NSTemporaryDirectory() + "deadzone-agent-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: storage, withIntermediateDirectories: true)
    }

    /// WiFi only, connecting straight to the origin.
    var wifi: NetworkPath {
        NetworkPath(interfaces: [PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: endpoint)])
    }

    /// Cellular only, connecting straight to the origin.
    var cellularOnly: NetworkPath {
        NetworkPath(interfaces: [
            PathInterface(kind: .cellular, isExpensive: true, isConstrained: false, endpoint: endpoint)
        ])
    }

    private var endpoint: String { "127.0.0.1:\(server.port)" }

    /// Launches `bench agent` with `options` and says hello (the storage, `after`), its
    /// events logged.
    func launch(after: RelaunchKind = .clean, _ options: [String] = []) async throws -> (AgentProcess, AgentEventLog) {
        let log = AgentEventLog()
        let agent = try await AgentProcess.launch(
            executable: try benchExecutable(), arguments: ["agent"] + options, storage: storage, after: after,
            stderrPath: storage + "-stderr-\(UUID().uuidString.prefix(8))"
        ) { _, event in log.append(event) }
        agents.withLock { $0.append(agent) }
        return (agent, log)
    }

    /// The request for video `id`, with its catalog entry as the origin serves it.
    func request(_ id: String, allowsCellular: Bool? = nil) async throws -> AppDownloadRequest {
        let catalog = server.store.catalog
        let entry = try #require(catalog.video(withID: id), "no video \(id) in the origin's catalog")
        return AppDownloadRequest(
            video: VideoDocument(entry, in: catalog), catalogURL: "http://\(endpoint)/videos/\(id)",
            allowsCellular: allowsCellular)
    }

    /// Kills every agent still running and removes the storage and their stderr files.
    func tearDown() async {
        let launched = agents.withLock { $0 }
        for agent in launched where agent.isRunning { try? await agent.kill() }
        for agent in launched { try? FileManager.default.removeItem(atPath: agent.stderrPath) }
        try? FileManager.default.removeItem(atPath: storage)
    }
}

/// Runs `body` with an origin of small segments (`sizeScale`), `configure`d, and tears
/// everything down afterwards, agents included.
func withAgentFixture<T>(
    sizeScale: Double = 0.02, _ configure: (inout OriginConfiguration) -> Void = { _ in },
    _ body: (AgentFixture) async throws -> T
) async throws -> T {
    var configuration = OriginConfiguration(
        catalog: CatalogConfiguration(sizeScale: sizeScale, largeVideoDuration: 120), threads: 1)
    configure(&configuration)
    let server = try await OriginServer.start(configuration: configuration)
    let fixture: AgentFixture
    do { fixture = try AgentFixture(server: server) } catch {
        try? await server.stop()
        throw error
    }
    do {
        let result = try await body(fixture)
        await fixture.tearDown()
        try await server.stop()
        return result
    } catch {
        await fixture.tearDown()
        try? await server.stop()
        throw error
    }
}

extension AgentProcess {
    /// The token a `request` reply carries.
    func requestToken(_ request: AppDownloadRequest) async throws -> String {
        guard case .download(let token) = try await send(.request(request)) else { throw UnexpectedReply(command: "request") }
        return token
    }

    /// The inspection an `inspect` reply carries.
    func inspect(download: String) async throws -> AppInspection {
        guard case .inspection(let inspection) = try await send(.inspect(download: download)) else {
            throw UnexpectedReply(command: "inspect")
        }
        return inspection
    }
}

struct UnexpectedReply: Error, CustomStringConvertible {
    var command: String
    var description: String { "the agent answered \(command) with a value of the wrong kind" }
}
