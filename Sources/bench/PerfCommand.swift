import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `bench perf`: benchmarks of Deadzone's own components.
struct PerfCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "perf",
        abstract: "Measure Deadzone's own performance on loopback.",
        subcommands: [PerfProxyCommand.self, PerfOriginCommand.self, PerfEngineCommand.self]
    )
}

/// `bench perf proxy`: throughput, latency, shaping accuracy and CPU of the link conditioner,
/// all measured in one run on loopback, each against its target.
struct PerfProxyCommand: ParsableCommand {
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

    static let sectionIDs = ["throughput", "latency", "rate", "delay", "fairness", "cpu"]

    func validate() throws {
        guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be in (0, 600]") }
        guard connections > 0, connections <= 5000 else { throw ValidationError("--connections must be in 1...5000") }
        if let only {
            for id in only.split(separator: ",") where !Self.sectionIDs.contains(String(id)) {
                throw ValidationError("--only: unknown section '\(id)'; expected some of \(Self.sectionIDs.joined(separator: ","))")
            }
        }
    }

    func run() throws {
        // A peer that went away must not kill the process (in-process conditioner, and the child inherits it).
        signal(SIGPIPE, SIG_IGN)
        let wanted = only.map { Set($0.split(separator: ",").map(String.init)) } ?? Set(Self.sectionIDs)
        let rateSeconds = quick ? min(seconds, 2) : seconds
        let warmup = quick ? 0.5 : 1.0
        let printer = PerfPrinter(json: json)
        let load = PerfLoad.sample()
        printer.line("bench perf proxy\(quick ? " --quick" : ""): \(PerfAffinity.onlineCPUs) CPUs, "
                     + "\(PerfFormat.number(rateSeconds)) s per rate test" + (perfIsDebugBuild ? " (DEBUG BUILD: figures are not meaningful)" : ""))
        printer.line(String(format: "machine before the run: %.0f%% of all CPUs busy, load average %.2f", load.busy * 100, load.loadAverage)
                     + (load.busy > 0.15 ? " - WARNING: other work is running; figures will be low and noisy" : ""))

        var sections: [PerfSection] = []
        var index = 0
        func section(_ id: String, _ title: String, _ body: () -> PerfSection) {
            guard wanted.contains(id) else { return }
            index += 1
            printer.heading(index, title)
            let start = PerfClock.now()
            var result = body()
            result.seconds = PerfClock.seconds(PerfClock.now() - start)
            printer.body(result)
            sections.append(result)
        }

        section("throughput", "Unshaped single-stream throughput") {
            PerfThroughput.run(seconds: quick ? 1 : 3)
        }
        section("latency", "Added round-trip latency, 64-byte ping-pong") {
            PerfLatency.run(roundTrips: quick ? 1000 : 5000)
        }
        section("rate", "Rate accuracy (achieved / target, downlink)") {
            PerfShaping.runRateAccuracy(rates: [1e6, 10e6, 50e6], warmup: warmup, seconds: rateSeconds)
        }
        section("delay", "Delay error, 50 ms one-way downlink delay") {
            PerfShaping.runDelayError(seconds: rateSeconds)
        }
        section("fairness", "Jain fairness, 4 connections sharing 10 Mbit/s") {
            PerfShaping.runFairness(warmup: warmup, seconds: rateSeconds)
        }
        section("cpu", "CPU for \(connections) concurrent shaped connections (child process)") {
            PerfScale.run(connections: connections, warmup: quick ? 1 : 2, seconds: rateSeconds)
        }

        let tally = printer.finish(sections)
        let (passed, missed, errors) = (tally.passed, tally.missed, tally.errors)
        if json {
            let report = PerfRunReport(quick: quick, rateSeconds: rateSeconds, cpus: PerfAffinity.onlineCPUs,
                                       busyBefore: load.busy, loadAverageBefore: load.loadAverage, sections: sections, passed: passed, missed: missed, errors: errors)
            try printer.writeJSON(report)
        }
        if errors > 0 { throw ExitCode(1) }
    }
}
