import BenchCore
import FixtureOrigin
import Foundation
import LinkConditioner

/// A finished comparison: the report and the merged trace of every run.
public struct ComparisonRun: Sendable {
    public var report: ComparisonReport
    public var trace: [TraceEntry]
}

/// Runs every client under every fault mode, one run at a time, against one fixture
/// origin serving one video (`ComparisonContent`), each run behind its own link
/// conditioner, all on one trace.
public enum ComparisonRunner {
    /// Runs the comparison. Clients that cannot run here (a missing tool) are reported
    /// `not-run` with what to install, never silently left out.
    /// - Throws: `ComparisonError` when the origin or its content cannot be made.
    public static func run(
        _ options: ComparisonOptions, progress: @escaping @Sendable (ComparisonProgress) -> Void = { _ in }
    ) async throws(ComparisonError) -> ComparisonRun {
        let collector = ComparisonTrace()
        let started = ContinuousClock.now
        let links = ComparisonLinks(profile: options.profile)
        let video = ComparisonContent.video(
            rate: links.wifiDownlinkBitsPerSecond, targetSeconds: options.targetSeconds, durationSeconds: options.videoSeconds)
        var configuration = OriginConfiguration(
            catalog: CatalogConfiguration(seed: options.seed, segmentDuration: options.segmentSeconds, sizeScale: 1),
            videos: [video], media: options.media, threads: 2, clock: MonotonicClock())
        configuration.segmentCacheBytes = 256 * 1024 * 1024
        let origin: OriginServer
        do { origin = try await OriginServer.start(configuration: configuration) } catch {
            throw .content("the fixture origin does not start: \(error)")
        }
        let store = origin.store
        // Real media is made by ffmpeg, seconds per segment: off the cooperative pool.
        let made = await OffPool.run { () -> Result<[[UInt8]], ContentError> in
            do throws(ContentError) {
                return .success(try ComparisonContent.segments(of: video, in: store) { progress(.preparing(index: $0, count: $1)) })
            } catch {
                return .failure(error)
            }
        }
        let segments: [[UInt8]]
        switch made {
        case .success(let value): segments = value
        case .failure(let error):
            try? await origin.stop()
            throw .content(error.description)
        }
        var frames: Int?
        if case .real(let real) = options.media {
            // Each segment is its own encode of exactly duration × frame rate frames.
            frames = (0..<segments.count).reduce(0) { sum, index in
                sum + Int((store.catalog.duration(ofSegment: index, of: video) * Double(real.frameRate)).rounded())
            }
        }
        let inspector = OutputInspector(
            content: segments.flatMap { $0 }, segmentSizes: segments.map(\.count), expectedSeconds: video.duration,
            expectedVideoFrames: frames, isRealMedia: options.isRealMedia, ffprobe: options.ffprobe, ffmpeg: options.ffmpeg)
        let untraced = await connectTracingUnavailable(options)
        if let why = untraced { progress(.note("connection attempts are not traced: \(why)")) }

        // One root per comparison: two comparisons in one process must not share (or remove) each other's.
        let root = (options.workDirectory as NSString).appendingPathComponent("deadzone-compare-\(getpid())-\(UUID().uuidString.prefix(8))")
        var entries: [ClientEntry] = []
        var runs: [ClientRunResult] = []
        let count = options.clients.count * options.modes.count
        for client in options.clients {
            let reason = options.notRunReason(client)
            entries.append(ClientEntry(definition: client, missing: ToolLocator.missing(for: client), notRunReason: reason))
            for mode in options.modes {
                progress(.runStarted(client: client.name, mode: mode, index: runs.count, count: count))
                let result: ClientRunResult
                if let reason {
                    let now = collector.now
                    result = ClientRunResult(
                        client: client.name, mode: mode, outcome: .notRun, command: client.command, attempts: [],
                        exitStatus: nil, timedOut: false, output: nil, metrics: nil, startNanoseconds: now,
                        endNanoseconds: now, stderrTail: "", error: reason)
                } else {
                    let directory = (root as NSString).appendingPathComponent("\(client.name)-\(mode.rawValue)")
                    let driver = ClientRunDriver(
                        client: client, mode: mode, options: options, links: links, origin: origin, collector: collector,
                        inspector: inspector, traceConnects: untraced == nil, directory: directory)
                    // The driver keeps the fault script's time: on an executor of its own, never the pool.
                    let executor = DedicatedExecutor(name: "compare-\(client.name)-\(mode.rawValue)")
                    result = await executor.run { await driver.run(progress: progress) }
                    executor.shutdown()
                }
                runs.append(result)
                progress(.runFinished(result))
            }
        }
        try? await origin.stop()
        if !options.keepWorkDirectories { try? FileManager.default.removeItem(atPath: root) }
        let metadata = RunMetadata(
            profile: options.profile.name, profilePath: options.profilePath, seed: options.seed,
            startedAt: collector.epochWallClock, durationSeconds: (ContinuousClock.now - started).seconds,
            versions: RunEnvironment.versions(libuv: LibUVInfo.version), machine: RunEnvironment.machine)
        let variant = video.variants[0]
        let report = ComparisonReport(
            run: metadata,
            content: ComparisonContentInfo(
                video: video.id, variant: variant.name, bandwidth: variant.bandwidth, durationSeconds: video.duration,
                segments: segments.count, bytes: inspector.content.count, media: options.isRealMedia ? "real" : "synthetic"),
            links: ["wifi": InterfaceSetup(link: links.wifi).summary, "cellular": InterfaceSetup(link: links.cellular).summary],
            settings: options.settings, clients: entries,
            modes: options.modes.map { ModeEntry(mode: $0, summary: $0.summary, seed: options.seed(of: $0)) },
            runs: runs, connectTracing: untraced.map { "off: \($0)" } ?? "strace")
        let trace = collector.entries.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
        return ComparisonRun(report: report, trace: trace)
    }

    /// Why strace cannot trace a child here, nil when it can.
    static func connectTracingUnavailable(_ options: ComparisonOptions) async -> String? {
        guard options.traceConnects else { return "turned off (--no-connect-trace)" }
        guard ToolLocator.find(options.strace) != nil else {
            return "strace is not installed (apt-get install strace)"
        }
        let probe = await ToolRun.run(
            [options.strace, "-f", "-qq", "--seccomp-bpf", "-e", "trace=connect", "-o", "/dev/null", "/bin/true"],
            timeout: .seconds(20))
        guard probe.status == 0 else {
            let why = probe.errors.split(separator: "\n").first.map(String.init) ?? "status \(probe.status ?? -1)"
            return "strace cannot trace here (\(why)); ptrace may be forbidden in this container"
        }
        return nil
    }
}
