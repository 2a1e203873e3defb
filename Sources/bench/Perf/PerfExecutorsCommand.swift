import ArgumentParser
import Performance

/// `bench perf executors`: how late each clock of the process wakes while Swift's
/// cooperative pool is held (`PerfExecutorsBenchmark`).
struct PerfExecutorsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "executors",
        abstract: "Measure how late each clock wakes while Swift's cooperative pool is held (blocked, then computing).",
        discussion: """
            Holds the pool with twice as many tasks as cores, first blocked in a sleep, then spinning, and \
            meanwhile measures the worst lateness of a Task.sleep on the pool, a Timekeeper sleep on the pool, a \
            Timekeeper sleep on a dedicated executor (the harness's clock, judged against 250 ms) and the timer \
            thread itself (ARCHITECTURE.md, "Executors"). Exit status 1 when the dedicated executor's clock was \
            later than 250 ms.
            Example: swift run bench perf executors --hold 3
            """
    )

    @Option(help: "Seconds each section holds the pool.")
    var hold: Double = 3

    @Flag(help: "Print the results as JSON on stdout (progress goes to stderr).")
    var json = false

    func validate() throws {
        guard hold > 0, hold <= 60 else { throw ValidationError("--hold must be in (0, 60]") }
    }

    func run() async throws {
        let benchmark = PerfExecutorsBenchmark(hold: hold)
        let printer = PerfPrinter(json: json, headline: benchmark.headline)
        let report = await benchmark.run { printer.show($0) }
        try printer.finish(report)
        if report.tally.missed > 0 { throw ExitCode(1) }
    }
}
