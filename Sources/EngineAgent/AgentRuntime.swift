import AppProtocol
import BenchCore
import Foundation
import OfflineDownloads
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Deadzone's engine behind the app protocol: what `bench agent` runs. A
/// `DownloadManager` driven by `AppRequest` lines on stdin, reporting `AppMessage` lines
/// on stdout. The harness judges it like any other app: through the protocol only.
///
/// Three strands, each owning what it touches:
/// - a thread reads stdin (`AgentInput`) and hands over whole lines;
/// - the command loop (`run`'s task) decodes each line and performs its command on
///   the engine, one after the other in arrival order, then writes the reply; only
///   `prepareForBackground`, which may wait on the network for a long time, runs in
///   a task of its own, so `setPath` and the rest are not held up behind it;
/// - the relay task drains the engine's events in order and writes them as
///   `AppEvent`s (`AgentEventRelay`).
/// Every line goes through `AgentOutput`. Diagnostics go to stderr.
public final class AgentRuntime: Sendable {
    let options: AgentOptions
    let storage: String
    let engine: DownloadManager
    let feed: NetworkPathFeed
    let output: AgentOutput
    let inspector: AgentInspector
    /// `hammerRefusedPort`'s probe, fed every path the harness gives; nil otherwise.
    let probe: AgentReachabilityProbe?
    /// How the previous process ended, as the harness's `hello` said.
    let after: RelaunchKind
    /// What the replayed bugs remember (`AgentRuntime+Replays.swift`).
    let memory: Mutex<AgentMemory>

    private init(
        options: AgentOptions, storage: String, after: RelaunchKind, engine: DownloadManager, feed: NetworkPathFeed,
        output: AgentOutput, hidden: Set<String>
    ) {
        self.options = options
        self.after = after
        memory = Mutex(AgentMemory(hidden: hidden))
        self.storage = storage
        self.engine = engine
        self.feed = feed
        self.output = output
        inspector = AgentInspector(storageDirectory: storage)
        probe = options.misbehavior == .hammerRefusedPort ? AgentReachabilityProbe() : nil
    }

    /// The capabilities Deadzone's engine declares: all of them.
    public static let capabilities = Set(Capability.allCases)

    /// Runs the agent until stdin ends or a `shutdown` request, and returns the exit
    /// status: 0, or 2 when the harness speaks another protocol version. Called once per
    /// process, by `bench agent`, from its main task.
    ///
    /// Start-up: the first command must be `hello` (any other is refused until it
    /// comes); it names the storage directory and how the previous process ended. Then
    /// the partial segments found on disk (`AgentPartials`), the misbehaviour's storage
    /// step (`refetchAfterCrash`, `restartPartialSegments`), the engine on
    /// `options.initialPath`, `start(after:)`, the reply to `hello`, then
    /// `AppEvent.launched` and `AppEvent.partialSegmentsFound`; the events the engine
    /// reports while starting follow them. At the end the engine shuts down, its last
    /// events are written, then the reply to `shutdown`.
    /// - Throws: when the storage directory or the index cannot be opened.
    public static func run(options: AgentOptions) async throws -> Int32 {
        signal(SIGPIPE, SIG_IGN)  // a vanished harness shows as write errors, then end of input
        let output = AgentOutput()
        var lines = AgentInput.lines().makeAsyncIterator()
        guard let hello = await Self.hello(from: &lines, output: output) else { return 0 }
        guard hello.version == AppProtocol.version else {
            let why = "this app speaks protocol \(AppProtocol.version), not \(hello.version)"
            AgentLog.write(why)
            output.reply(id: hello.id, error: why)
            return 2
        }
        if let caFile = hello.caFile, let why = Self.unusableCAFile(caFile) {
            AgentLog.write(why)
            output.reply(id: hello.id, error: why)
            return 2
        }
        var options = options
        options.caFile = hello.caFile
        let runtime = try await start(options: options, storage: hello.storage, after: hello.after, output: output)
        output.reply(id: hello.id, value: .hello(AppHello(
            app: "deadzone \(DeadzoneVersion.current)", capabilities: capabilities)))
        output.event(.launched(pid: getpid(), after: hello.after))
        output.event(.partialSegmentsFound(runtime.partials.map(\.segment)))
        if let scanError = runtime.scanError { output.event(.error(download: nil, message: scanError)) }
        let relay = Task { await runtime.agent.relayEvents() }
        AgentLog.write("started on \(hello.storage) after \(hello.after)")
        while let line = await lines.next() {
            guard let request = runtime.agent.request(from: line) else { continue }
            switch request.command {
            case .shutdown:
                await runtime.agent.stop(relay)
                output.reply(id: request.id)
                return 0
            case .hello:
                output.reply(id: request.id, error: "hello comes once, first; this app has started already")
            case .prepareForBackground:
                Task { await runtime.agent.answer(request) }
            default:
                await runtime.agent.answer(request)
            }
        }
        AgentLog.write("stdin ended: shutting down")
        await runtime.agent.stop(relay)
        return 0
    }

    /// What the harness's `hello` says.
    private struct Hello {
        var id: Int
        var version: Int
        var storage: String
        var after: RelaunchKind
        /// The run's CA (PEM) the origin's certificate is checked against; nil over plain HTTP.
        var caFile: String?
    }

    /// Why hello's `caFile` cannot be used (not an absolute path, or no readable PEM
    /// certificate there); nil when it can.
    static func unusableCAFile(_ path: String) -> String? {
        guard path.hasPrefix("/") else { return "caFile \(path) is not an absolute path" }
        guard let data = FileManager.default.contents(atPath: path) else { return "caFile \(path) cannot be read" }
        guard String(decoding: data, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            return "caFile \(path) holds no PEM certificate"
        }
        return nil
    }

    /// Reads lines until the harness's `hello`, refusing everything before it; nil when
    /// stdin ends first.
    private static func hello(from lines: inout AsyncStream<String>.Iterator, output: AgentOutput) async -> Hello? {
        while let line = await lines.next() {
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            let request: AppRequest
            do { request = try AppWire.decode(AppRequest.self, from: line) } catch {
                AgentLog.write("\(error)")
                output.reply(id: AppWire.id(in: line) ?? -1, error: "not a command of protocol \(AppProtocol.version): \(error)")
                continue
            }
            guard case let .hello(version, storage, after, caFile) = request.command else {
                output.reply(id: request.id, error: "the first command must be hello (protocol \(AppProtocol.version))")
                continue
            }
            return Hello(id: request.id, version: version, storage: storage, after: after, caFile: caFile)
        }
        return nil
    }

    /// The engine started on `storage`, with what was found on disk before it started.
    private static func start(options: AgentOptions, storage: String, after: RelaunchKind, output: AgentOutput)
        async throws -> (agent: AgentRuntime, partials: [AgentPartials.Found], scanError: String?)
    {
        try FileManager.default.createDirectory(atPath: storage, withIntermediateDirectories: true)
        let partials: [AgentPartials.Found]
        var scanError: String?
        do { partials = try await AgentPartials.scan(storageDirectory: storage) } catch {
            partials = []
            scanError = "cannot list the partial segments before the engine starts: \(error)"
        }
        if options.misbehavior == .restartPartialSegments, [.crash, .memoryPressure].contains(after) {
            let deleted = AgentMisbehavior.discardPartialSegments(partials)
            AgentLog.write("restart-partial-segments: deleted \(deleted) .part files")
        }
        if options.misbehavior == .refetchAfterCrash, after == .crash {
            let deleted = try await AgentMisbehavior.discardStoredSegments(storageDirectory: storage)
            AgentLog.write("refetch-after-crash: deleted \(deleted) stored segment files")
        }
        let feed = NetworkPathFeed(options.misbehavior?.pathForEngine(options.initialPath) ?? options.initialPath)
        let engine = try DownloadManager(configuration: options.engineConfiguration(storage: storage), path: feed)
        await engine.start(after: ProcessTermination(after))
        var hidden: Set<String> = []
        if options.misbehavior == .duplicateAfterRelaunch, [.crash, .memoryPressure].contains(after) {
            hidden = await AgentMisbehavior.requestDuplicates(of: engine, storageDirectory: storage)
            AgentLog.write("duplicate-after-relaunch: requested \(hidden.count) copies")
        }
        if options.misbehavior == .unpauseAfterRelaunch, [.crash, .memoryPressure].contains(after) {
            let resumed = await AgentMisbehavior.resumePaused(in: engine)
            AgentLog.write("unpause-after-relaunch: resumed \(resumed) paused downloads")
        }
        let agent = AgentRuntime(
            options: options, storage: storage, after: after, engine: engine, feed: feed, output: output, hidden: hidden)
        return (agent, partials, scanError)
    }

    /// The request on `line`; nil for a blank line, or for one that does not decode,
    /// which is refused with a reply saying why: to the line's `id` when it has one,
    /// else to id -1.
    func request(from line: String) -> AppRequest? {
        guard !line.allSatisfy(\.isWhitespace) else { return nil }
        do {
            return try AppWire.decode(AppRequest.self, from: line)
        } catch {
            AgentLog.write("\(error)")
            output.reply(id: AppWire.id(in: line) ?? -1, error: "not a command of protocol \(AppProtocol.version): \(error)")
            return nil
        }
    }

    /// Shuts the engine down and waits until its last event is written.
    private func stop(_ relay: Task<Void, Never>) async {
        probe?.stop()
        await engine.shutdown()
        feed.finish()
        await relay.value
    }

    /// Writes every engine event, in order, until the engine shuts down.
    private func relayEvents() async {
        var relay = AgentEventRelay(misbehavior: options.misbehavior)
        for await event in engine.events {
            guard !hides(event) else { continue }
            learnPlan(&relay, for: event)
            relay.pathOffersInterface = memory.withLock { !$0.toldOffline }
            var output = relay.relay(event)
            output.events = retoldAfterOfflineResume(output.events)
            output.events += await earlyClaim(&relay, after: event)
            output.events += replayClaims(&relay, after: event)
            for appEvent in output.events { self.output.event(appEvent) }
            writeOfflineClaims(afterRelaying: event)
            guard let token = output.pause else { continue }
            do { try await engine.pause(token) } catch {
                AgentLog.write("fail-on-outage: cannot stop \(token): \(error)")
            }
        }
    }
}

extension ProcessTermination {
    /// The engine's name for how the last process ended, from the protocol's.
    init(_ kind: RelaunchKind) {
        switch kind {
        case .clean: self = .clean
        case .crash: self = .crash
        case .memoryPressure: self = .memoryPressure
        case .userForceQuit: self = .userForceQuit
        case .rebootWhileSuspended: self = .rebootWhileSuspended
        }
    }
}
