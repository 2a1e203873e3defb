import BenchCore
import Foundation
import AppProtocol
import FixtureOrigin
import LinkConditioner

/// How a run is made.
public struct HarnessOptions: Sendable {
    /// The profile whose links the scenarios run over, and the file it came from.
    public var profile: Profile
    public var profilePath: String
    public var seed: UInt64
    /// The most one scenario may take before it is stopped and reported as failed.
    public var timeLimit: Duration
    /// The app under test (Deadzone's engine: `bench agent …`), launched again after kills.
    public var app: AppCommandLine
    /// Where the agents' storage goes (one directory per scenario, removed afterwards).
    public var workDirectory: String
    /// The stall timeout the app is judged against (`liveness`): how long bytes may
    /// stop before it must notice. Give the app the same (`bench agent --stall-timeout`).
    public var stallTimeout: Duration
    /// Bounds the properties judge with.
    public var bounds: PropertyContext
    /// How the report names the app under test (`deadzone`, `deadzone --misbehave X`, or
    /// the `--agent` command line): a gate compares only runs of the same agent.
    public var agentName: String
    /// How long the app may take to answer `hello`.
    public var helloTimeout: Duration
    /// The most scenarios played at the same time (`--jobs`); 1 plays them one after another.
    public var jobs: Int
    /// Each scenario's seed is `seed` plus its index in the run; a run that plays part of
    /// a whole (`--shard`) gives here, by scenario name, the index in the whole, so that
    /// a scenario plays with the same seed sharded or not.
    public var seedOffsets: [String: Int]? = nil
    /// How the app is started, reached and killed instead of today's child process on
    /// stdin/stdout and SIGKILL (`--launch`, `--agent-listen`, `--kill`); its `command`
    /// replaces `app` when given.
    public var launch: AppLaunch? = nil
    /// Serve every scenario's origin and license server over HTTPS with a certificate of
    /// this run's CA, and give the app its `caFile` (`--https`); nil: plain HTTP.
    public var https: HarnessHTTPS? = nil
    /// Streams `bench record` copied, served by every scenario's origin beside the fixture
    /// videos; a scenario names them by id (`--catalog DIR`).
    public var recorded = RecordedContent()
    /// Outside origins fetched live through the intercepting proxy (`--intercept`; needs
    /// `https`, whose CA signs the certificates it mints); nil: none.
    public var interception: HarnessInterception? = nil
    /// The fixture videos the scenarios play on a recorded stream (`--video`,
    /// `VideoSubstitution.videos`), recorded in the report's `run.videos`; the scenarios
    /// themselves carry the substitution.
    public var videos: [String: String] = [:]
    /// Also handed every conditioner event of each scenario, as it happens (a session's
    /// event stream); nil: only the trace.
    public var conditionerObserver: (any EventSink)? = nil

    /// What a launch runs: `launch` when given, else `app` on stdin/stdout; told the CA
    /// to trust when the run serves HTTPS.
    var appLaunch: AppLaunch {
        var launch = launch ?? AppLaunch(command: app)
        launch.caFile = https?.caFile
        return launch
    }

    /// Creates options; defaults as DESIGN.md §5 states them.
    public init(
        profile: Profile, profilePath: String, seed: UInt64, timeLimit: Duration = .seconds(240), app: AppCommandLine,
        workDirectory: String = NSTemporaryDirectory(), stallTimeout: Duration = .seconds(4),
        bounds: PropertyContext = PropertyContext(), agentName: String? = nil,
        helloTimeout: Duration = AgentProcess.helloTimeout, jobs: Int = 1
    ) {
        self.jobs = jobs
        self.agentName = agentName ?? app.description
        self.helloTimeout = helloTimeout
        self.profile = profile
        self.profilePath = profilePath
        self.seed = seed
        self.timeLimit = timeLimit
        self.app = app
        self.workDirectory = workDirectory
        self.stallTimeout = stallTimeout
        self.bounds = bounds
    }
}

/// What the runner tells whoever shows progress.
public enum HarnessProgress: Sendable {
    case scenarioStarted(name: String, index: Int, count: Int)
    /// Every half second while a scenario runs: elapsed time and the live view.
    case running(name: String, elapsed: Duration, limit: Duration, live: LiveState)
    case scenarioFinished(ScenarioResult)
}

/// A finished run: the report and the whole merged trace.
public struct HarnessRun: Sendable {
    public var report: RunReport
    public var trace: [TraceEntry]
}

/// Runs scenarios, up to `HarnessOptions.jobs` at the same time, each with its own
/// origin, conditioner, agent storage and trace collector on the run's one time axis;
/// judges every property over each scenario's own entries; merges the traces.
public enum HarnessRunner {
    public static func run(
        _ scenarios: [Scenario], options: HarnessOptions, progress: @escaping @Sendable (HarnessProgress) -> Void = { _ in }
    ) async -> HarnessRun {
        let collector = TraceCollector()
        let started = ContinuousClock.now
        let cpuAtStart = CPUSample.now()
        let jobs = max(1, min(options.jobs, scenarios.count))
        let load = RunLoad.process
        var results = [ScenarioResult?](repeating: nil, count: scenarios.count)
        var traces = [[TraceEntry]](repeating: [], count: scenarios.count)
        await withTaskGroup(of: (Int, ScenarioResult, [TraceEntry]).self) { group in
            var waiting = startOrder(scenarios, jobs: jobs)[...]
            func startNext() {
                guard let index = waiting.popFirst() else { return }
                let scenario = scenarios[index]
                group.addTask {
                    progress(.scenarioStarted(name: scenario.name, index: index, count: scenarios.count))
                    let own = collector.scenario(scenario.name)
                    let result = await load.playing {
                        await ScenarioRun(
                            scenario: scenario, options: options, seed: options.seed &+ UInt64(options.seedOffsets?[scenario.name] ?? index), collector: own, load: load
                        ).run(progress: progress)
                    }
                    progress(.scenarioFinished(result))
                    return (index, result, own.entries)
                }
            }
            for _ in 0..<jobs { startNext() }
            for await (index, result, entries) in group {
                results[index] = result
                traces[index] = entries
                startNext()
            }
        }
        let othersShare = cpuAtStart.flatMap { start in CPUSample.now().flatMap { start.othersShare(until: $0) } }
        let finished = (results: results, traces: traces)
        // Merging and sorting a long run's trace is CPU work: off the pool.
        var run = await OffPool.run {
            merge(finished.results, finished.traces, options: options, collector: collector, started: started, jobs: jobs)
        }
        run.report.run.othersCPUShare = othersShare
        return run
    }

    /// The run's report and its merged trace, in time order.
    private static func merge(
        _ results: [ScenarioResult?], _ traces: [[TraceEntry]], options: HarnessOptions, collector: TraceCollector,
        started: ContinuousClock.Instant, jobs: Int
    ) -> HarnessRun {
        let merged = traces.flatMap { $0 }
        var metadata = RunMetadata(
            profile: options.profile.name, profilePath: options.profilePath, seed: options.seed,
            startedAt: collector.epochWallClock, durationSeconds: (ContinuousClock.now - started).seconds,
            versions: RunEnvironment.versions(libuv: LibUVInfo.version), machine: RunEnvironment.machine, agent: options.agentName,
            app: merged.lazy.compactMap { entry -> String? in
                if case .harness(.helloAnswered(let app, _)) = entry.event { return app }
                return nil
            }.first,
            jobs: jobs, https: options.https == nil ? nil : true)
        metadata.videos = options.videos.isEmpty ? nil : options.videos
        let trace = merged.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
        let scenarios = results.compactMap { $0 }
        let coverage = SituationModel.runCoverage(scenarios.compactMap { result in result.coverage.map { (result.name, $0) } })
        return HarnessRun(report: RunReport(run: metadata, scenarios: scenarios, coverage: coverage), trace: trace)
    }

    /// The order scenarios start in: file order, except when more than one but fewer
    /// than all may play at once (`jobs`): then the longest first (by the time their
    /// content is sized for), so the run ends sooner, file order among equals. Every
    /// scenario keeps its index (seed, report order).
    static func startOrder(_ scenarios: [Scenario], jobs: Int) -> [Int] {
        guard jobs > 1, jobs < scenarios.count else { return Array(scenarios.indices) }
        return scenarios.indices.sorted { (-scenarios[$0].targetSeconds, $0) < (-scenarios[$1].targetSeconds, $1) }
    }
}

