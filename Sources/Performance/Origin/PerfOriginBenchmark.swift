#if canImport(Glibc)
import Glibc
#endif

/// What `bench perf origin` measures, with which wrk load.
public struct PerfOriginConfiguration: Sendable {
    /// The sections, in the order they run; their raw values are the `--only` names.
    public enum Section: String, CaseIterable, Sendable {
        case segments, media, master, catalog
    }

    /// The wrk executable (`PerfWrk.locate()` finds one on PATH).
    public var wrkExecutable: String
    /// Whole seconds wrk measures each section.
    public var seconds = 5
    /// A short run of every section (1 s warm-up, at most 2 s measured), for smoke tests.
    public var quick = false
    public var sections: Set<Section> = Set(Section.allCases)
    /// wrk connections (-c) and threads (-t).
    public var connections = 32
    public var wrkThreads = 1
    /// Event-loop threads of the origin.
    public var originThreads = 2

    public init(wrkExecutable: String) { self.wrkExecutable = wrkExecutable }

    var wrkLoad: PerfWrkLoad {
        PerfWrkLoad(threads: wrkThreads, connections: connections, seconds: quick ? min(seconds, 2) : seconds)
    }

    /// The first line `bench perf origin` prints.
    public var headline: String {
        "bench perf origin\(quick ? " --quick" : ""): \(PerfAffinity.onlineCPUs) CPUs, origin \(originThreads) "
            + "event-loop threads, wrk \(wrkLoad.arguments.joined(separator: " ")) (\(wrkExecutable))" + PerfFormat.debugWarning
    }
}

/// `bench perf origin`: requests per second and throughput of the fixture origin (in this
/// process) under wrk (a child process) on loopback, each figure against its target.
///
/// Called by `bench perf origin` from its task; wrk is awaited, never blocked on. The
/// process ignores SIGPIPE from the start.
public struct PerfOriginBenchmark: Sendable {
    public var configuration: PerfOriginConfiguration

    public init(_ configuration: PerfOriginConfiguration) { self.configuration = configuration }

    /// Runs the chosen sections; throws only when the origin cannot start or stop.
    public func run(progress: @escaping @Sendable (PerfProgress) -> Void) async throws -> PerfRunReport {
        signal(SIGPIPE, SIG_IGN)
        let config = configuration, load = config.wrkLoad
        let machine = await PerfMachineLoad.sample()
        progress(.began(machine))
        let server = try await PerfOriginHarness.start(threads: config.originThreads)
        let wanted = Set(config.sections.map(\.rawValue))
        var runner = PerfSectionRunner(progress: progress)
        for origin in PerfOriginHarness.loads where wanted.contains(origin.id) {
            await runner.run(origin.title) {
                await PerfOriginHarness.measure(origin, server: server, wrk: config.wrkExecutable, wrkLoad: load,
                                                warmupSeconds: config.quick ? 1 : 2)
            }
        }
        try await server.stop()
        return PerfRunReport(command: "bench perf origin", quick: config.quick, rateSeconds: Double(load.seconds),
                             cpus: PerfAffinity.onlineCPUs, machine: machine, sections: runner.sections)
    }
}
