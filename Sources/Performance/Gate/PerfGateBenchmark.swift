import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What `bench perf gate` measures, and the thresholds it judges against.
public struct PerfGateConfiguration: Sendable {
    /// Where the committed thresholds are, from the repository's root.
    public static let defaultThresholdsPath = "Perf/thresholds.yaml"

    /// `bench perf gate`'s one-line help.
    public static let abstract = "The performance gate (CI): proxy vs a bare forwarder and direct loopback, "
        + "engine goodput on a shaped link; fails below the committed ratios."

    /// `bench perf gate --help`'s text.
    public static let discussion = """
        In one run: 1 unshaped single-stream throughput along three loopback paths (direct, a bare byte-copying \
        forwarder, the link conditioner), in interleaved rounds, giving the ratios proxy-over-forwarder and \
        proxy-over-direct (each path's best round); 2 Deadzone's engine downloading `clear` at 3000k through the \
        conditioner over a 10 Mbit/s link (bench download as a child, every byte checked), giving engine-goodput = \
        goodput / link rate. Prints every figure and ratio, then judges the three ratios against the floors in the \
        thresholds file for this build configuration (debug or release: a debug build's ratios are lower). Ratios \
        only: absolute speeds vary between machines. Exit 0 when every ratio is at or above its floor; 1 when one \
        is below, missing or not a number (each named with its value and floor), when a measurement failed, or when \
        the file marks this configuration `not measured`; 2 when the thresholds file is unreadable or invalid.
        --quick (what CI runs: swift run -q bench perf gate --quick) takes about 30 s in a debug build.
        """

    /// Short measurements: 5 rounds of 1 s streams, a quarter-size catalog (about 12 MB to download).
    public var quick = false
    public var thresholds: PerfGateThresholds
    /// The configuration whose thresholds apply: this binary's, unless a test says otherwise.
    public var build = PerfBuildConfiguration.current
    /// The shaped link of the engine section, in Mbit/s.
    public var linkMbps = 10.0
    /// The `bench` executable whose `download` subcommand the engine section runs; nil: this process's.
    public var benchExecutable: String?

    public init(thresholds: PerfGateThresholds, quick: Bool = false) {
        self.thresholds = thresholds
        self.quick = quick
    }

    /// Reads the thresholds at `thresholdsPath` (`PerfGateThresholds.load(contentsOf:)`).
    public init(thresholdsPath: String, quick: Bool = false) throws(PerfGateThresholdsError) {
        self.init(thresholds: try PerfGateThresholds.load(contentsOf: thresholdsPath), quick: quick)
    }

    var rounds: Int { quick ? 5 : 7 }
    var streamSeconds: Double { quick ? 1 : 3 }
    var sizeScale: Double { quick ? 0.25 : 1 }

    /// The floors of this build configuration, or nil when it is `not measured`.
    var floors: [PerfGateRatio: Double]? {
        if case .floors(let floors) = thresholds.set(for: build) { floors } else { nil }
    }

    /// The first line `bench perf gate` prints.
    public var headline: String {
        "bench perf gate\(quick ? " --quick" : ""): \(PerfAffinity.onlineCPUs) CPUs, \(build.rawValue) build, "
            + "thresholds \(thresholds.path), \(rounds) rounds of \(PerfFormat.number(streamSeconds)) s streams, "
            + "engine over \(PerfFormat.number(linkMbps)) Mbit/s"
    }
}

/// `bench perf gate`: the ratios CI guards — the conditioner's unshaped throughput against a
/// bare forwarder and against direct loopback, the engine's goodput against a shaped link's
/// rate — measured in one run and judged against the committed floors (`PerfGateVerdict`).
///
/// Called by `bench perf gate` from its task; the throughput rounds run on a dedicated thread
/// (they block), the engine section polls its child. The process ignores SIGPIPE from the start.
public struct PerfGateBenchmark: Sendable {
    public var configuration: PerfGateConfiguration

    public init(_ configuration: PerfGateConfiguration) { self.configuration = configuration }

    /// Runs both sections and judges; never throws: a failed measurement is a section error
    /// and a missing ratio, which fail the gate.
    public func run(progress: @escaping @Sendable (PerfProgress) -> Void) async -> PerfGateRunReport {
        signal(SIGPIPE, SIG_IGN)
        let config = configuration, floors = config.floors
        let machine = await PerfMachineLoad.sample()
        progress(.began(machine))
        var runner = PerfSectionRunner(progress: progress)
        var measured: [PerfGateRatio: Double] = [:]
        await runner.run("Unshaped throughput: conditioner, bare forwarder, direct loopback") {
            let result = try? await perfOnDedicatedThread(name: "perf-section") {
                PerfGateThroughput.run(rounds: config.rounds, seconds: config.streamSeconds, floors: floors)
            }
            guard let result else {
                return PerfSection(id: "throughput", title: "Unshaped throughput", method: "", error: "cannot start a thread")
            }
            measured.merge(result.1) { $1 }
            return result.0
        }
        await runner.run("Engine goodput on a shaped \(PerfFormat.number(config.linkMbps)) Mbit/s link") {
            let (section, ratios) = await PerfGateEngine.run(
                linkMbps: config.linkMbps, sizeScale: config.sizeScale, floor: floors?[.engineGoodput],
                benchExecutable: config.benchExecutable, progress: progress)
            measured.merge(ratios) { $1 }
            return section
        }
        let verdict = PerfGateVerdict.judge(measured: measured, thresholds: config.thresholds, configuration: config.build)
        return PerfGateRunReport(quick: config.quick, cpus: PerfAffinity.onlineCPUs, machine: machine,
                                 sections: runner.sections, ratios: measured, verdict: verdict)
    }
}

/// The JSON form of a `bench perf gate` run: the sections, the measured ratios and the verdict.
public struct PerfGateRunReport: PerfReport, Codable, Equatable {
    public var command = "bench perf gate"
    public var quick: Bool
    public var cpus: Int
    /// Share of all CPU time used (by anything) in the 0.5 s before the run, and the load average.
    public var busyBefore: Double
    public var loadAverageBefore: Double
    public var sections: [PerfSection]
    /// The ratios measured, by key (a failed measurement is absent).
    public var ratios: [String: Double]
    public var gate: PerfGateVerdict
    public var passed: Bool

    public init(quick: Bool, cpus: Int, machine: PerfMachineLoad, sections: [PerfSection],
                ratios: [PerfGateRatio: Double], verdict: PerfGateVerdict) {
        self.quick = quick
        self.cpus = cpus
        busyBefore = machine.busy
        loadAverageBefore = machine.loadAverage
        self.sections = sections
        self.ratios = Dictionary(uniqueKeysWithValues: ratios.filter { $0.value.isFinite }.map { ($0.key.rawValue, $0.value) })
        gate = verdict
        passed = verdict.passed && PerfTally(sections).errors == 0
    }

    /// The gate's lines after the summary; when it failed on a busy machine (over half of all
    /// CPU time used just before the run, or a load average above the CPU count), a last line
    /// says that the load may be the cause.
    public var verdictLines: [String] {
        guard !passed, busyBefore > 0.5 || loadAverageBefore > Double(cpus) else { return gate.lines }
        return gate.lines + [String(
            format: "note: the machine was busy before the run (%.0f%% of all CPUs, load average %.2f on %d CPUs): a ratio "
                + "below its floor may be the load's; run the gate again on a quieter machine before suspecting a regression",
            busyBefore * 100, loadAverageBefore, cpus)]
    }
    /// Fails unless every ratio passed and every section was measured.
    public var failed: Bool { !passed }
}
