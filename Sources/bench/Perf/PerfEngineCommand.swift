import ArgumentParser
import Foundation
import Performance

/// `bench perf engine`: the offline download engine end to end — `bench download` as a
/// child process, through the link conditioner, from the fixture origin — against the
/// issue's targets: goodput, bytes fetched under resets, peak RSS (`PerfEngineBenchmark`).
struct PerfEngineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "engine",
        abstract: "Benchmark the download engine through the conditioner: goodput, overhead under resets, peak RSS.",
        discussion: """
            Sections: 1 goodput (clear at 3000k, ~47 MB, over a clean link: content bytes / launch-to-exit time ≥ 90% \
            of the link), 2 resets (the same with random connection resets, p per MiB: link downstream bytes ≤ 1.01 × \
            content bytes), 3 memory (clear, protected and large at 1200k in one process: peak RSS ≤ 64 MB). Each runs \
            `bench download` as a child of this executable and checks every stored file against the origin. \
            --quick uses a quarter-size catalog. Build with -c release: a debug build is several times slower.
            Example: swift run -c release bench perf engine --quick
            """
    )

    @Flag(help: "Quarter-size segments (about 12 MB per video at 3000k), for smoke tests.")
    var quick = false

    @Flag(help: "Print the results as JSON on stdout (progress goes to stderr).")
    var json = false

    @Option(help: "Only these sections, comma-separated: goodput,resets,memory.")
    var only: String?

    @Option(help: "The wifi downlink rate, in Mbit/s.")
    var rateMbps: Double = 50

    @Option(help: "Random resets per MiB forwarded on a connection, in the resets section (0.25: about one per 4 MB).")
    var resetProbability: Double = 0.25

    @Option(help: "Seed of the conditioner's profile (where the random resets fall).")
    var seed: UInt64 = 1

    @Option(help: "Directory the engine's storage of each run is made in (default: the temp directory).")
    var storageDir: String?

    @Flag(help: "Keep each run's engine storage (index and packages) in the temp directory.")
    var keepStorage = false

    func validate() throws {
        guard rateMbps > 0, rateMbps <= 10_000 else { throw ValidationError("--rate-mbps must be in (0, 10000]") }
        guard resetProbability > 0, resetProbability < 1 else { throw ValidationError("--reset-probability must be in (0, 1)") }
        if let storageDir {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: storageDir, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--storage-dir \(storageDir) is not a directory")
            }
        }
        _ = try Set<PerfEngineConfiguration.Section>(only: only)
    }

    func run() async throws {
        var configuration = PerfEngineConfiguration()
        (configuration.quick, configuration.sections, configuration.rateMbps) = (quick, try Set(only: only), rateMbps)
        (configuration.resetProbability, configuration.seed) = (resetProbability, seed)
        (configuration.storageDirectory, configuration.keepStorage) = (storageDir, keepStorage)
        let printer = PerfPrinter(json: json, headline: configuration.headline)
        try printer.finish(try await PerfEngineBenchmark(configuration).run { printer.show($0) })
    }
}
