#if canImport(Glibc)
import Glibc
#endif

/// What `bench perf proxy` measures, and for how long.
public struct PerfProxyConfiguration: Sendable {
    /// The sections, in the order they run; their raw values are the `--only` names.
    public enum Section: String, CaseIterable, Sendable {
        case throughput, latency, rate, delay, fairness, cpu
    }

    /// Seconds each rate-based test measures (rate accuracy, fairness, delay, CPU).
    public var seconds: Double = 10
    /// A short run of every section (about 2 s each), for smoke tests.
    public var quick = false
    public var sections: Set<Section> = Set(Section.allCases)
    /// Concurrent connections in the CPU section.
    public var connections = 1000
    /// The `bench` executable whose `proxy` subcommand the CPU section runs as a child;
    /// nil: this process's own executable.
    public var benchExecutable: String?

    public init() {}

    /// Seconds each rate test measures: `seconds`, at most 2 with `quick`.
    public var rateSeconds: Double { quick ? min(seconds, 2) : seconds }

    /// The first line `bench perf proxy` prints.
    public var headline: String {
        "bench perf proxy\(quick ? " --quick" : ""): \(PerfAffinity.onlineCPUs) CPUs, "
            + "\(PerfFormat.number(rateSeconds)) s per rate test" + PerfFormat.debugWarning
    }
}

/// `bench perf proxy`: throughput, latency, shaping accuracy, fairness and CPU of the link
/// conditioner, measured on loopback, each against its target.
///
/// Called by `bench perf proxy`. Each section runs on a thread of its own (the measurements
/// block: sockets, sleeps, joins), one after the other; the process ignores SIGPIPE from
/// the first one on (a peer that went away must not kill it, nor the child it starts).
public struct PerfProxyBenchmark: Sendable {
    public var configuration: PerfProxyConfiguration

    public init(_ configuration: PerfProxyConfiguration) { self.configuration = configuration }

    /// Runs the chosen sections; a section that fails carries its error and the rest still run.
    public func run(progress: @escaping @Sendable (PerfProgress) -> Void) async -> PerfRunReport {
        signal(SIGPIPE, SIG_IGN)
        let config = configuration
        let warmup = config.quick ? 0.5 : 1.0, seconds = config.rateSeconds
        let machine = await PerfMachineLoad.sample()
        progress(.began(machine))
        let sections: [(PerfProxyConfiguration.Section, String, @Sendable () -> PerfSection)] = [
            (.throughput, "Unshaped single-stream throughput", { PerfThroughput.run(seconds: config.quick ? 1 : 3) }),
            (.latency, "Added round-trip latency, 64-byte ping-pong", { PerfLatency.run(roundTrips: config.quick ? 1000 : 5000) }),
            (.rate, "Rate accuracy (achieved / target, downlink)", {
                PerfShaping.runRateAccuracy(rates: [1e6, 10e6, 50e6], warmup: warmup, seconds: seconds)
            }),
            (.delay, "Delay error, 50 ms one-way downlink delay", { PerfDelay.run(seconds: seconds) }),
            (.fairness, "Jain fairness, 4 connections sharing 10 Mbit/s", {
                PerfShaping.runFairness(warmup: warmup, seconds: seconds)
            }),
            (.cpu, "CPU for \(config.connections) concurrent shaped connections (child process)", {
                PerfScale.run(connections: config.connections, warmup: config.quick ? 1 : 2, seconds: seconds,
                              benchExecutable: config.benchExecutable)
            }),
        ]
        var runner = PerfSectionRunner(progress: progress)
        for (id, title, body) in sections where config.sections.contains(id) {
            await runner.run(title) {
                do { return try await perfOnDedicatedThread(name: "perf-section", body) } catch {
                    return PerfSection(id: id.rawValue, title: title, method: "", error: "\(error)")
                }
            }
        }
        return PerfRunReport(command: "bench perf proxy", quick: config.quick, rateSeconds: seconds,
                             cpus: PerfAffinity.onlineCPUs, machine: machine, sections: runner.sections)
    }
}
