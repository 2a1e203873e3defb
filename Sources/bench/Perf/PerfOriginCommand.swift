import ArgumentParser
import FixtureOrigin
import BenchCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `bench perf origin`: requests per second and throughput of the fixture origin under wrk
/// on loopback, each figure against its target, printed like `bench perf proxy`.
struct PerfOriginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "origin",
        abstract: "Benchmark the fixture origin with wrk on loopback: 1 MB segments, playlists, catalog JSON.",
        discussion: """
            Sections: 1 segments (1 MB each, Gbit/s), 2 media playlist and 3 master playlist (req/s), 4 catalog \
            JSON (req/s, no target). Needs wrk (apt-get install wrk, or DEADZONE_NEEDS_WRK=1 bash .ci/install-deps); \
            exits 2 without it. Build with -c release: a debug build is several times slower.
            Example: swift run -c release bench perf origin --quick
            """
    )

    @Option(help: "Seconds wrk measures each section (whole seconds).")
    var seconds = 5

    @Flag(help: "A short run of every section (1 s warm-up, 2 s measured), for smoke tests.")
    var quick = false

    @Flag(help: "Print the results as JSON on stdout (progress goes to stderr).")
    var json = false

    @Option(help: "Only these sections, comma-separated: segments,media,master,catalog.")
    var only: String?

    @Option(help: "wrk connections (-c).")
    var connections = 32

    @Option(help: "wrk threads (-t).")
    var wrkThreads = 1

    @Option(help: "Event-loop threads of the origin.")
    var originThreads = 2

    func validate() throws {
        guard (1...600).contains(seconds) else { throw ValidationError("--seconds must be in 1...600") }
        guard (1...1000).contains(connections) else { throw ValidationError("--connections must be in 1...1000") }
        guard (1...64).contains(wrkThreads), wrkThreads <= connections else {
            throw ValidationError("--wrk-threads must be in 1...64 and at most --connections")
        }
        guard (1...64).contains(originThreads) else { throw ValidationError("--origin-threads must be in 1...64") }
        for id in only?.split(separator: ",") ?? [] where !PerfOriginHarness.sectionIDs.contains(String(id)) {
            throw ValidationError("--only: unknown section '\(id)'; expected some of \(PerfOriginHarness.sectionIDs.joined(separator: ","))")
        }
    }

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        guard let wrk = PerfWrk.locate() else {
            FileHandle.standardError.writeSurvivingSignals(Data("""
                error: bench perf origin needs wrk, the HTTP load generator, on PATH. Install it with \
                `apt-get install wrk` (or `DEADZONE_NEEDS_WRK=1 bash .ci/install-deps`).\n
                """.utf8))
            throw ExitCode(2)
        }
        let wanted = only.map { Set($0.split(separator: ",").map(String.init)) } ?? Set(PerfOriginHarness.sectionIDs)
        let load = PerfWrkLoad(threads: wrkThreads, connections: connections, seconds: quick ? min(seconds, 2) : seconds)
        let printer = PerfPrinter(json: json)
        let machine = PerfLoad.sample()
        printer.line("bench perf origin\(quick ? " --quick" : ""): \(PerfAffinity.onlineCPUs) CPUs, origin \(originThreads) "
                     + "event-loop threads, wrk \(load.arguments.joined(separator: " ")) (\(wrk))"
                     + (perfIsDebugBuild ? " (DEBUG BUILD: figures are not meaningful)" : ""))
        printer.line(String(format: "machine before the run: %.0f%% of all CPUs busy, load average %.2f", machine.busy * 100, machine.loadAverage)
                     + (machine.busy > 0.15 ? " - WARNING: other work is running; figures will be low and noisy" : ""))

        let server = try await PerfOriginHarness.start(threads: originThreads)
        var sections: [PerfSection] = []
        for origin in PerfOriginHarness.loads where wanted.contains(origin.id) {
            printer.heading(sections.count + 1, origin.title)
            let start = PerfClock.now()
            var section = await PerfOriginHarness.measure(origin, server: server, wrk: wrk, wrkLoad: load,
                                                          warmupSeconds: quick ? 1 : 2)
            section.seconds = PerfClock.seconds(PerfClock.now() - start)
            printer.body(section)
            sections.append(section)
        }
        try await server.stop()

        let tally = printer.finish(sections)
        let (passed, missed, errors) = (tally.passed, tally.missed, tally.errors)
        if json {
            let report = PerfRunReport(command: "bench perf origin", quick: quick, rateSeconds: Double(load.seconds),
                                       cpus: PerfAffinity.onlineCPUs, busyBefore: machine.busy, loadAverageBefore: machine.loadAverage,
                                       sections: sections, passed: passed, missed: missed, errors: errors)
            try printer.writeJSON(report)
        }
        if errors > 0 { throw ExitCode(1) }
    }
}
