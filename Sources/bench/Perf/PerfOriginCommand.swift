import ArgumentParser
import BenchCore
import Foundation
import Performance

/// `bench perf origin`: requests per second and throughput of the fixture origin under wrk
/// on loopback, each figure against its target, printed like `bench perf proxy` (`PerfOriginBenchmark`).
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
        _ = try Set<PerfOriginConfiguration.Section>(only: only)
    }

    func run() async throws {
        guard let wrk = PerfWrk.locate() else {
            FileHandle.standardError.writeSurvivingSignals(Data("""
                error: bench perf origin needs wrk, the HTTP load generator, on PATH. Install it with \
                `apt-get install wrk` (or `DEADZONE_NEEDS_WRK=1 bash .ci/install-deps`).\n
                """.utf8))
            throw ExitCode(2)
        }
        var configuration = PerfOriginConfiguration(wrkExecutable: wrk)
        (configuration.seconds, configuration.quick, configuration.sections) = (seconds, quick, try Set(only: only))
        (configuration.connections, configuration.wrkThreads, configuration.originThreads) = (connections, wrkThreads, originThreads)
        let printer = PerfPrinter(json: json, headline: configuration.headline)
        try printer.finish(try await PerfOriginBenchmark(configuration).run { printer.show($0) })
    }
}
