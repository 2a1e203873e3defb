import BenchCore
import Foundation
import OfflineDownloads
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// "The app" of the harness, run by `bench agent`: a `DownloadManager` driven by
/// `AgentRequest` lines on stdin, reporting `AgentMessage` lines on stdout.
///
/// Three strands, each owning what it touches:
/// - a thread reads stdin (`AgentInput`) and hands over whole lines;
/// - the command loop (`run`'s task) decodes each line and performs its command on
///   the engine, one after the other in arrival order, then writes the reply; only
///   `prepareForBackground`, which may wait on the network for a long time, runs in
///   a task of its own, so `setPath` and the rest are not held up behind it;
/// - the relay task drains the engine's events in order and writes them as
///   `AgentEvent`s (`AgentEventRelay`).
/// Every line goes through `AgentOutput`. Diagnostics go to stderr.
public final class AgentRuntime: Sendable {
    let options: AgentOptions
    let engine: DownloadManager
    let feed: NetworkPathFeed
    let output: AgentOutput
    let inspector: AgentInspector

    private init(options: AgentOptions, engine: DownloadManager, feed: NetworkPathFeed, output: AgentOutput) {
        self.options = options
        self.engine = engine
        self.feed = feed
        self.output = output
        inspector = AgentInspector(storageDirectory: options.storageDirectory)
    }

    /// Runs the agent until stdin ends or a `shutdown` request, and returns the exit
    /// status (0). Called once per process, by `bench agent`, from its main task.
    ///
    /// Start-up: the partial segments found on disk (`AgentPartials`), the
    /// misbehaviour's storage step (`refetchAfterCrash`, `restartPartialSegments`), the
    /// engine on `options.initialPath`, `start(after:)`, then `AgentEvent.launched` and
    /// `AgentEvent.partialSegmentsFound`; the events the engine reports while starting
    /// follow them. At the end the engine shuts down, its last events are written,
    /// then the reply to `shutdown`.
    /// - Throws: when the storage directory or the index cannot be opened.
    public static func run(options: AgentOptions) async throws -> Int32 {
        signal(SIGPIPE, SIG_IGN)  // a vanished harness shows as write errors, then end of input
        try FileManager.default.createDirectory(atPath: options.storageDirectory, withIntermediateDirectories: true)
        let partials: [AgentPartials.Found]
        var scanError: String?
        do { partials = try await AgentPartials.scan(storageDirectory: options.storageDirectory) } catch {
            partials = []
            scanError = "cannot list the partial segments before the engine starts: \(error)"
        }
        if options.misbehavior == .restartPartialSegments, [.crash, .memoryPressure].contains(options.after) {
            let deleted = AgentMisbehavior.discardPartialSegments(partials)
            AgentLog.write("restart-partial-segments: deleted \(deleted) .part files")
        }
        if options.misbehavior == .refetchAfterCrash, options.after == .crash {
            let deleted = try await AgentMisbehavior.discardStoredSegments(storageDirectory: options.storageDirectory)
            AgentLog.write("refetch-after-crash: deleted \(deleted) stored segment files")
        }
        let feed = NetworkPathFeed(options.misbehavior?.pathForEngine(options.initialPath) ?? options.initialPath)
        let engine = try DownloadManager(configuration: options.engineConfiguration, path: feed)
        await engine.start(after: options.after)
        let runtime = AgentRuntime(options: options, engine: engine, feed: feed, output: AgentOutput())
        runtime.output.event(.launched(pid: getpid(), after: options.after))
        runtime.output.event(.partialSegmentsFound(partials.map(\.segment)))
        if let scanError { runtime.output.event(.error(download: nil, message: scanError)) }
        let relay = Task { await runtime.relayEvents() }
        AgentLog.write("started on \(options.storageDirectory) after \(options.after)")
        for await line in AgentInput.lines() {
            guard let request = runtime.request(from: line) else { continue }
            switch request.command {
            case .shutdown:
                await runtime.stop(relay)
                runtime.output.reply(id: request.id, value: .done)
                return 0
            case .prepareForBackground:
                Task { await runtime.answer(request) }
            default:
                await runtime.answer(request)
            }
        }
        AgentLog.write("stdin ended: shutting down")
        await runtime.stop(relay)
        return 0
    }

    /// The request on `line`; nil for a blank line, or for one that does not decode,
    /// which is refused with a reply saying why: to the line's `id` when it has one,
    /// else to id -1.
    func request(from line: String) -> AgentRequest? {
        guard !line.allSatisfy(\.isWhitespace) else { return nil }
        do {
            return try AgentWire.decode(AgentRequest.self, from: line)
        } catch {
            let shown = line.count > 200 ? line.prefix(200) + "…" : Substring(line)
            let why = "the line is not an AgentRequest (\(AgentWire.describe(error))): \(shown)"
            AgentLog.write(why)
            output.reply(id: AgentWire.requestID(in: line) ?? -1, value: .done, error: why)
            return nil
        }
    }

    /// Shuts the engine down and waits until its last event is written.
    private func stop(_ relay: Task<Void, Never>) async {
        await engine.shutdown()
        feed.finish()
        await relay.value
    }

    /// Writes every engine event, in order, until the engine shuts down.
    private func relayEvents() async {
        var relay = AgentEventRelay(misbehavior: options.misbehavior)
        for await event in engine.events {
            let output = relay.relay(event)
            for agentEvent in output.events { self.output.event(agentEvent) }
            guard let token = output.pause else { continue }
            do { try await engine.pause(token) } catch {
                AgentLog.write("fail-on-outage: cannot stop \(token): \(error)")
            }
        }
    }
}
