import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What `bench perf engine` measures, over which link.
public struct PerfEngineConfiguration: Sendable {
    /// The sections, in the order they run; their raw values are the `--only` names.
    public enum Section: String, CaseIterable, Sendable {
        case goodput, resets, memory
    }

    /// Quarter-size segments (about 12 MB per video at 3000k), for smoke tests.
    public var quick = false
    public var sections: Set<Section> = Set(Section.allCases)
    /// The wifi downlink rate, in Mbit/s.
    public var rateMbps: Double = 50
    /// Random resets per MiB forwarded on a connection, in the resets section.
    public var resetProbability = 0.25
    /// Seed of the conditioner's profile (where the random resets fall).
    public var seed: UInt64 = 1
    /// Directory each run's engine storage is made in; nil: the temp directory.
    public var storageDirectory: String?
    /// Keep each run's engine storage (index and packages); a `notice` says where.
    public var keepStorage = false
    /// The `bench` executable whose `download` subcommand runs each download; nil: this
    /// process's own executable.
    public var benchExecutable: String?

    public init() {}

    var sizeScale: Double { quick ? 0.25 : 1 }
    var largeVideoDuration: Double { quick ? 300 : 600 }

    /// The first line `bench perf engine` prints.
    public var headline: String {
        "bench perf engine\(quick ? " --quick" : ""): \(PerfAffinity.onlineCPUs) CPUs, wifi downlink "
            + "\(PerfFormat.number(rateMbps)) Mbit/s, catalog size scale \(PerfFormat.number(sizeScale)), seed \(seed)"
            + PerfFormat.debugWarning
    }
}

/// `bench perf engine`: the offline download engine end to end — `bench download` as a
/// child process, through the link conditioner, from the fixture origin (both in this
/// process) — against the issue's targets: goodput, bytes fetched under resets, peak RSS.
///
/// Called by `bench perf engine` from its task; the child is polled, never blocked on. The
/// process ignores SIGPIPE from the start.
public struct PerfEngineBenchmark: Sendable {
    public var configuration: PerfEngineConfiguration

    public init(_ configuration: PerfEngineConfiguration) { self.configuration = configuration }

    /// Runs the chosen sections; throws only when the origin cannot start or stop.
    public func run(progress: @escaping @Sendable (PerfProgress) -> Void) async throws -> PerfEngineRunReport {
        signal(SIGPIPE, SIG_IGN)
        let config = configuration, rate = config.rateMbps * 1e6
        let machine = await PerfMachineLoad.sample()
        progress(.began(machine))
        let origin = try await PerfEngineHarness.startOrigin(sizeScale: config.sizeScale,
                                                             largeVideoDuration: config.largeVideoDuration)
        var runner = PerfSectionRunner(progress: progress)
        for item in sections() where config.sections.contains(item.id) {
            await runner.run(item.title) {
                var section = PerfSection(id: item.id.rawValue, title: item.title, method: item.method)
                do {
                    let run = try await PerfEngineHarness.run(
                        item.scenario, origin: origin, linkBitsPerSecond: rate, seed: config.seed,
                        storageParent: config.storageDirectory ?? NSTemporaryDirectory(), keepStorage: config.keepStorage,
                        benchExecutable: config.benchExecutable, progress: progress)
                    section.figures = item.figures(run)
                    section.notes = PerfEngineSections.notes(run)
                } catch {
                    section.error = "\(error)"
                }
                return section
            }
        }
        try await origin.stop()
        return PerfEngineRunReport(quick: config.quick, linkBitsPerSecond: rate,
                                   resetProbabilityPerMiB: config.resetProbability, seed: config.seed,
                                   cpus: PerfAffinity.onlineCPUs, machine: machine, sections: runner.sections)
    }

    /// Each section: what it downloads, how it is described, and how its run becomes figures.
    private func sections() -> [(id: PerfEngineConfiguration.Section, title: String, scenario: PerfEngineScenario,
                                 method: String, figures: (PerfEngineRun) -> [PerfFigure])] {
        let link = "\(PerfFormat.number(configuration.rateMbps)) Mbit/s"
        let probability = configuration.resetProbability
        return [
            (.goodput, "Goodput on a clean \(link) link", PerfEngineScenario(videos: ["clear"], bitrate: 3_000_000),
             "bench download of `clear` at 3000k (one process, the engine's defaults: 2 segment fetches at a time) "
                + "through the conditioner's wifi, \(link) downlink, no delay, loss or faults. Goodput is the bytes of the "
                + "stored media files over the time from launching the process to its exit, against the link rate.",
             PerfEngineSections.goodput),
            (.resets, "Bytes fetched under random resets", PerfEngineScenario(
                videos: ["clear"], bitrate: 3_000_000, resetProbabilityPerMiB: probability),
             "The same download with every connection reset at random, p = \(probability) per MiB it forwards "
                + "(seeded). Bytes fetched are the conditioner's wifi downstream bytes (HTTP heads, catalog JSON and "
                + "playlists included); content bytes are the stored media files.",
             PerfEngineSections.resets),
            (.memory, "Peak RSS, three videos at once", PerfEngineScenario(
                videos: ["clear", "protected", "large"], bitrate: 1_200_000),
             "One bench download process with `clear`, `protected` (license) and `large` "
                + "(\(Int(configuration.largeVideoDuration)) s) at "
                + "1200k over the same clean link (the engine runs 2 downloads at a time and queues the third). Peak RSS "
                + "of the child process alone: wait4's ru_maxrss, or VmHWM sampled every "
                + "\(Int(PerfEngineChild.sampleInterval * 1000)) ms when ru_maxrss is the parent's (see notes).",
             PerfEngineSections.memory),
        ]
    }
}
