import Foundation

/// What every benchmark run returns: its sections, and the tally of them.
public protocol PerfReport: Encodable, Sendable {
    var sections: [PerfSection] { get }
    /// Lines printed after the summary (a gate's verdict); none by default.
    var verdictLines: [String] { get }
    /// Whether the command exits 1: by default, when a section could not be measured.
    var failed: Bool { get }
}

extension PerfReport {
    public var tally: PerfTally { PerfTally(sections) }
    public var verdictLines: [String] { [] }
    public var failed: Bool { tally.errors > 0 }

    /// The report as `--json` prints it: pretty, keys sorted, slashes unescaped, no final newline.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}

/// Figures that passed and missed, and sections that ended with an error.
public struct PerfTally: Sendable, Equatable {
    public var passed: Int
    public var missed: Int
    public var errors: Int

    public init(passed: Int, missed: Int, errors: Int) {
        (self.passed, self.missed, self.errors) = (passed, missed, errors)
    }

    public init(_ sections: [PerfSection]) {
        let figures = sections.flatMap(\.figures)
        passed = figures.filter { $0.pass == true }.count
        missed = figures.filter { $0.pass == false }.count
        errors = sections.filter { $0.error != nil }.count
    }
}

/// The JSON form of a `bench perf proxy` or `bench perf origin` run.
public struct PerfRunReport: PerfReport, Codable, Equatable {
    public var command: String
    public var quick: Bool
    /// Seconds each rate test (proxy) or each wrk run (origin) measured.
    public var rateSeconds: Double
    public var cpus: Int
    /// Share of all CPU time used (by anything) in the 0.5 s before the run, and the load average.
    public var busyBefore: Double
    public var loadAverageBefore: Double
    public var sections: [PerfSection]
    public var passed: Int
    public var missed: Int
    public var errors: Int

    /// The tally fields are counted from `sections`.
    public init(command: String, quick: Bool, rateSeconds: Double, cpus: Int, machine: PerfMachineLoad,
                sections: [PerfSection]) {
        let tally = PerfTally(sections)
        self.command = command
        self.quick = quick
        self.rateSeconds = rateSeconds
        self.cpus = cpus
        busyBefore = machine.busy
        loadAverageBefore = machine.loadAverage
        self.sections = sections
        (passed, missed, errors) = (tally.passed, tally.missed, tally.errors)
    }
}

/// The JSON form of a `bench perf engine` run.
public struct PerfEngineRunReport: PerfReport, Codable, Equatable {
    public var command = "bench perf engine"
    public var quick: Bool
    public var linkBitsPerSecond: Double
    public var resetProbabilityPerMiB: Double
    public var seed: UInt64
    public var cpus: Int
    /// Share of all CPU time used (by anything) in the 0.5 s before the run, and the load average.
    public var busyBefore: Double
    public var loadAverageBefore: Double
    public var sections: [PerfSection]
    public var passed: Int
    public var missed: Int
    public var errors: Int

    /// The tally fields are counted from `sections`.
    public init(quick: Bool, linkBitsPerSecond: Double, resetProbabilityPerMiB: Double, seed: UInt64, cpus: Int,
                machine: PerfMachineLoad, sections: [PerfSection]) {
        let tally = PerfTally(sections)
        self.quick = quick
        self.linkBitsPerSecond = linkBitsPerSecond
        self.resetProbabilityPerMiB = resetProbabilityPerMiB
        self.seed = seed
        self.cpus = cpus
        busyBefore = machine.busy
        loadAverageBefore = machine.loadAverage
        self.sections = sections
        (passed, missed, errors) = (tally.passed, tally.missed, tally.errors)
    }
}

/// What a benchmark tells its caller while it runs, in order: `began` once, then
/// `sectionStarted` and `sectionFinished` for each section, `notice` at any time.
/// Delivered on the benchmark's own thread or task; the handler must be quick.
public enum PerfProgress: Sendable {
    /// The machine's load just before the first section.
    case began(PerfMachineLoad)
    /// Section number `index` (from 1) starts.
    case sectionStarted(index: Int, title: String)
    case sectionFinished(PerfSection)
    /// A remark for the person running it (e.g. where kept files are).
    case notice(String)
}

/// Whether this binary is a debug build, whose figures are not meaningful.
let perfIsDebugBuild: Bool = {
    #if DEBUG
    true
    #else
    false
    #endif
}()

/// Runs a benchmark's sections one after the other, numbering them from 1, timing each and
/// reporting progress; keeps them for the report. Used by the three benchmarks.
struct PerfSectionRunner {
    let progress: @Sendable (PerfProgress) -> Void
    private(set) var sections: [PerfSection] = []

    init(progress: @escaping @Sendable (PerfProgress) -> Void) { self.progress = progress }

    mutating func run(_ title: String, _ body: () async -> PerfSection) async {
        progress(.sectionStarted(index: sections.count + 1, title: title))
        let start = PerfClock.now()
        var section = await body()
        section.seconds = PerfClock.seconds(PerfClock.now() - start)
        progress(.sectionFinished(section))
        sections.append(section)
    }
}
