import ArgumentParser
import FixtureOrigin
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `bench perf engine`: the offline download engine end to end — `bench download` as a
/// child process, through the link conditioner, from the fixture origin — against the
/// issue's targets: goodput, bytes fetched under resets, peak RSS.
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

    static let sectionIDs = ["goodput", "resets", "memory"]

    func validate() throws {
        guard rateMbps > 0, rateMbps <= 10_000 else { throw ValidationError("--rate-mbps must be in (0, 10000]") }
        guard resetProbability > 0, resetProbability < 1 else { throw ValidationError("--reset-probability must be in (0, 1)") }
        if let storageDir {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: storageDir, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--storage-dir \(storageDir) is not a directory")
            }
        }
        for id in only?.split(separator: ",") ?? [] where !Self.sectionIDs.contains(String(id)) {
            throw ValidationError("--only: unknown section '\(id)'; expected some of \(Self.sectionIDs.joined(separator: ","))")
        }
    }

    func run() async throws {
        signal(SIGPIPE, SIG_IGN)
        let wanted = only.map { Set($0.split(separator: ",").map(String.init)) } ?? Set(Self.sectionIDs)
        let rate = rateMbps * 1e6
        let sizeScale = quick ? 0.25 : 1
        let printer = PerfPrinter(json: json)
        let machine = PerfLoad.sample()
        printer.line("bench perf engine\(quick ? " --quick" : ""): \(PerfAffinity.onlineCPUs) CPUs, wifi downlink "
                     + "\(PerfFormat.number(rateMbps)) Mbit/s, catalog size scale \(PerfFormat.number(sizeScale)), seed \(seed)"
                     + (perfIsDebugBuild ? " (DEBUG BUILD: figures are not meaningful)" : ""))
        printer.line(String(format: "machine before the run: %.0f%% of all CPUs busy, load average %.2f", machine.busy * 100, machine.loadAverage)
                     + (machine.busy > 0.15 ? " - WARNING: other work is running; figures will be low and noisy" : ""))

        let origin = try await PerfEngineHarness.startOrigin(sizeScale: sizeScale, largeVideoDuration: quick ? 300 : 600)
        let link = "\(PerfFormat.number(rateMbps)) Mbit/s"
        let sections: [(id: String, title: String, scenario: PerfEngineScenario, method: String,
                        figures: (PerfEngineRun) -> [PerfFigure])] = [
            ("goodput", "Goodput on a clean \(link) link", PerfEngineScenario(videos: ["clear"], bitrate: 3_000_000),
             "bench download of `clear` at 3000k (one process, the engine's defaults: 2 segment fetches at a time) "
                + "through the conditioner's wifi, \(link) downlink, no delay, loss or faults. Goodput is the bytes of the "
                + "stored media files over the time from launching the process to its exit, against the link rate.",
             PerfEngineSections.goodput),
            ("resets", "Bytes fetched under random resets", PerfEngineScenario(
                videos: ["clear"], bitrate: 3_000_000, resetProbabilityPerMiB: resetProbability),
             "The same download with every connection reset at random, p = \(resetProbability) per MiB it forwards "
                + "(seeded). Bytes fetched are the conditioner's wifi downstream bytes (HTTP heads, catalog JSON and "
                + "playlists included); content bytes are the stored media files.",
             PerfEngineSections.resets),
            ("memory", "Peak RSS, three videos at once", PerfEngineScenario(
                videos: ["clear", "protected", "large"], bitrate: 1_200_000),
             "One bench download process with `clear`, `protected` (license) and `large` (\(quick ? 300 : 600) s) at "
                + "1200k over the same clean link (the engine runs 2 downloads at a time and queues the third). Peak RSS "
                + "of the child process alone: wait4's ru_maxrss, or VmHWM sampled every "
                + "\(Int(PerfEngineChild.sampleInterval * 1000)) ms when ru_maxrss is the parent's (see notes).",
             PerfEngineSections.memory),
        ]

        var results: [PerfSection] = []
        for item in sections where wanted.contains(item.id) {
            printer.heading(results.count + 1, item.title)
            let start = PerfClock.now()
            var section = PerfSection(id: item.id, title: item.title, method: item.method)
            do {
                let run = try await PerfEngineHarness.run(item.scenario, origin: origin, linkBitsPerSecond: rate,
                                                          seed: seed, storageParent: storageDir ?? NSTemporaryDirectory(),
                                                          keepStorage: keepStorage)
                section.figures = item.figures(run)
                section.notes = PerfEngineSections.notes(run)
            } catch {
                section.error = "\(error)"
            }
            section.seconds = PerfClock.seconds(PerfClock.now() - start)
            printer.body(section)
            results.append(section)
        }
        try await origin.stop()

        let tally = printer.finish(results)
        let (passed, missed, errors) = (tally.passed, tally.missed, tally.errors)
        if json {
            let report = PerfEngineRunReport(quick: quick, linkBitsPerSecond: rate, resetProbabilityPerMiB: resetProbability,
                                             seed: seed, cpus: PerfAffinity.onlineCPUs, busyBefore: machine.busy,
                                             loadAverageBefore: machine.loadAverage, sections: results, passed: passed,
                                             missed: missed, errors: errors)
            try printer.writeJSON(report)
        }
        if errors > 0 { throw ExitCode(1) }
    }
}

/// The JSON form of a `bench perf engine` run.
struct PerfEngineRunReport: Codable, Sendable {
    var command = "bench perf engine"
    var quick: Bool
    var linkBitsPerSecond: Double
    var resetProbabilityPerMiB: Double
    var seed: UInt64
    var cpus: Int
    /// Share of all CPU time used (by anything) in the 0.5 s before the run, and the load average.
    var busyBefore: Double
    var loadAverageBefore: Double
    var sections: [PerfSection]
    var passed: Int
    var missed: Int
    var errors: Int
}
