import ArgumentParser
import Performance

/// `bench perf gate`: the performance gate CI runs; the measuring and judging are `PerfGateBenchmark`'s.
struct PerfGateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "gate", abstract: PerfGateConfiguration.abstract, discussion: PerfGateConfiguration.discussion)

    @Flag(help: "Short measurements, about 30 s in a debug build: what CI runs.")
    var quick = false
    @Flag(help: "Print the results as JSON on stdout (progress goes to stderr).")
    var json = false
    @Option(help: "The thresholds file (one set of floors per build configuration).")
    var thresholds = PerfGateConfiguration.defaultThresholdsPath

    func run() async throws {
        let gate: PerfGateConfiguration  // a broken thresholds file is bad input (exit 2), found before measuring
        do { gate = try PerfGateConfiguration(thresholdsPath: thresholds, quick: quick) } catch { throw ValidationError("\(error)") }
        let printer = PerfPrinter(json: json, headline: gate.headline)
        try printer.finish(await PerfGateBenchmark(gate).run { printer.show($0) })
    }
}
