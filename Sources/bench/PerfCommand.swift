import ArgumentParser
import Performance

/// `bench perf`: benchmarks of Deadzone's own components (the `Performance` library).
struct PerfCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "perf",
        abstract: "Measure Deadzone's own performance on loopback (`bench perf gate --quick`: the gate CI runs).",
        subcommands: [
            PerfProxyCommand.self, PerfOriginCommand.self, PerfEngineCommand.self, PerfGateCommand.self,
            PerfExecutorsCommand.self,
        ]
    )
}

/// `bench perf proxy`: throughput, latency, shaping accuracy and CPU of the link conditioner,
/// all measured in one run on loopback, each against its target (`PerfProxyBenchmark`).
struct PerfProxyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proxy",
        abstract: "Benchmark the link conditioner on loopback: throughput, latency, rate/delay accuracy, fairness, CPU.",
        discussion: """
            Sections: 1 unshaped throughput, 2 added latency (pinned and unpinned), 3 rate accuracy \
            (1/10/50 Mbit/s), 4 delay error (50 ms), 5 Jain fairness (4 × 10 Mbit/s), 6 CPU of a child \
            proxy with 1,000 shaped connections. Build with -c release: a debug build is several times slower.
            Example: swift run -c release bench perf proxy --quick
            """
    )

    @Option(help: "Seconds each rate-based test measures (rate accuracy, fairness, delay, CPU).")
    var seconds: Double = 10

    @Flag(help: "A short run of every section (about 2 s each), for smoke tests.")
    var quick = false

    @Flag(help: "Print the results as JSON on stdout (progress goes to stderr).")
    var json = false

    @Option(help: "Only these sections, comma-separated: throughput,latency,rate,delay,fairness,cpu.")
    var only: String?

    @Option(help: "Concurrent connections in the CPU section.")
    var connections: Int = 1000

    func validate() throws {
        guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be in (0, 600]") }
        guard connections > 0, connections <= 5000 else { throw ValidationError("--connections must be in 1...5000") }
        _ = try Set<PerfProxyConfiguration.Section>(only: only)
    }

    func run() async throws {
        var configuration = PerfProxyConfiguration()
        (configuration.seconds, configuration.quick, configuration.connections) = (seconds, quick, connections)
        configuration.sections = try Set(only: only)
        let printer = PerfPrinter(json: json, headline: configuration.headline)
        try printer.finish(await PerfProxyBenchmark(configuration).run { printer.show($0) })
    }
}
