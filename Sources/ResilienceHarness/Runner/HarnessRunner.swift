import BenchCore
import Foundation
import AppProtocol
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

    /// Creates options; defaults as DESIGN.md §5 states them.
    public init(
        profile: Profile, profilePath: String, seed: UInt64, timeLimit: Duration = .seconds(240), app: AppCommandLine,
        workDirectory: String = NSTemporaryDirectory(), stallTimeout: Duration = .seconds(4),
        bounds: PropertyContext = PropertyContext(), agentName: String? = nil,
        helloTimeout: Duration = AgentProcess.helloTimeout
    ) {
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

/// Runs scenarios one after another, each with its own origin, conditioner and agent
/// storage, all on one trace; judges every property over each scenario's window.
public enum HarnessRunner {
    public static func run(
        _ scenarios: [Scenario], options: HarnessOptions, progress: @escaping @Sendable (HarnessProgress) -> Void = { _ in }
    ) async -> HarnessRun {
        let collector = TraceCollector()
        let started = ContinuousClock.now
        var results: [ScenarioResult] = []
        for (index, scenario) in scenarios.enumerated() {
            progress(.scenarioStarted(name: scenario.name, index: index, count: scenarios.count))
            let seed = options.seed &+ UInt64(index)
            let result = await ScenarioRun(scenario: scenario, options: options, seed: seed, collector: collector)
                .run(progress: progress)
            results.append(result)
            progress(.scenarioFinished(result))
        }
        let metadata = RunMetadata(
            profile: options.profile.name, profilePath: options.profilePath, seed: options.seed,
            startedAt: collector.epochWallClock, durationSeconds: (ContinuousClock.now - started).seconds,
            versions: RunEnvironment.versions(libuv: LibUVInfo.version), machine: RunEnvironment.machine, agent: options.agentName,
            app: collector.entries.lazy.compactMap { entry -> String? in
                if case .harness(.helloAnswered(let app, _)) = entry.event { return app }
                return nil
            }.first)
        let trace = collector.entries.enumerated().sorted { ($0.element.t, $0.offset) < ($1.element.t, $1.offset) }.map(\.element)
        return HarnessRun(report: RunReport(run: metadata, scenarios: results), trace: trace)
    }
}

/// One scenario's run: network up, script under its time limit, app shut down, logs
/// absorbed, properties judged.
struct ScenarioRun {
    let scenario: Scenario
    let options: HarnessOptions
    let seed: UInt64
    let collector: TraceCollector

    func run(progress: @escaping @Sendable (HarnessProgress) -> Void) async -> ScenarioResult {
        let first = collector.count
        let start = collector.now
        collector.scenarioStarted()
        collector.harness(.scenarioStarted(name: scenario.name, profile: options.profile.name, seed: seed))
        // Every interface starts down, held by the scenario until its script brings it up,
        // or as the profile says.
        for kind in InterfaceKind.allCases {
            let state = scenario.interfacesStart == .asProfile ? options.profile.initial[kind]?.state ?? .up : .down(.refuse)
            switch state {
            case .up: collector.harness(.interfaceSet(kind, up: true, mode: nil))
            case .down(let mode): collector.harness(.interfaceSet(kind, up: false, mode: mode))
            }
        }
        let network: ScenarioNetwork
        do {
            network = try await ScenarioNetwork.start(
                profile: options.profile, focus: scenario.focus, targetSeconds: scenario.targetSeconds, seed: seed,
                collector: collector, interfacesStart: scenario.interfacesStart)
        } catch {
            return failed("could not start the scenario's origin and conditioner: \(error)", start: start)
        }
        let originFaults = OriginFaultPlayer.start(
            options.profile.origin, origin: network.origin, collector: collector, start: collector.now)
        let storage = (options.workDirectory as NSString)
            .appendingPathComponent("deadzone-\(scenario.name)-\(getpid())-\(seed)")
        defer { try? FileManager.default.removeItem(atPath: storage) }
        let origin = OriginCatalogView(store: network.origin.store)
        let packages = PackageWatch(collector: collector, origin: origin)
        let launcher = AgentLauncher(
            app: options.app, storage: storage, helloTimeout: options.helloTimeout, packages: packages)
        let context = ScenarioContext(
            collector: collector, network: network, launcher: launcher, packages: packages, seed: seed,
            profile: options.profile, needs: scenario.needs)
        let relay = Task {
            for await path in network.conditioner.pathUpdates { await context.pathPublished(path) }
        }
        let outcome = await runScript(context, progress: progress)
        originFaults?.cancel()
        await context.shutdown()
        collector.harness(.scenarioFinished(name: scenario.name, timedOut: outcome.timedOut))
        collector.absorb(origin: network.origin.requestLog, interfaces: network.interfaces)
        collector.absorb(license: network.origin.licenseServer.records)
        relay.cancel()
        let trace = ScenarioTrace(collector.entries(from: first))
        await network.stop()
        var bounds = options.bounds
        bounds.renditions = OriginRenditions(origin.layout(ofVideos: trace.downloads.map(\.video)))
        bounds.hashManifest = origin.manifest(claimedIn: trace)
        bounds.epochWallClock = collector.epochWallClock
        bounds.minimumCrashRestarts = scenario.minimumCrashRestarts
        bounds.stallTimeout = options.stallTimeout
        bounds.unreachable = reachability(trace, links: network.links, start: start)
        var metrics = ScenarioMetrics.measure(trace)
        let peak = await context.peakRSSBytes
        metrics.agentPeakRSSBytes = peak > 0 ? peak : nil
        if let missing = outcome.unsupported {
            // Not played: no verdict, no precondition; reported unsupported, never passed.
            return ScenarioResult(
                name: scenario.name, summary: scenario.summary, verdicts: [], metrics: ScenarioMetrics(),
                startNanoseconds: start, endNanoseconds: collector.now, unsupported: missing)
        }
        return ScenarioResult(
            name: scenario.name, summary: scenario.summary, verdicts: verdicts(trace, bounds), metrics: metrics,
            startNanoseconds: start, endNanoseconds: collector.now, error: outcome.error,
            preconditions: scenario.preconditions.map { $0.evaluate(trace, bounds) })
    }

    /// When the links the conditioner was given delivered nothing: the scenario's
    /// links from `start`, changed by each timeline phase the conditioner applied.
    private func reachability(_ trace: ScenarioTrace, links: [InterfaceKind: InterfaceLink], start: UInt64)
        -> LinkReachability
    {
        let timeline = options.profile.timeline.map(ScenarioNetwork.shaped)
        let phases = trace.entries.compactMap { entry -> (t: UInt64, links: [InterfaceKind: InterfaceLink])? in
            guard case .conditioner(.phaseApplied(let index, _, _)) = entry.event, timeline.indices.contains(index)
            else { return nil }
            return (entry.t, timeline[index].changes.mapValues(\.link))
        }
        return LinkReachability.from(initial: links, start: start, phases: phases, end: trace.end)
    }

    /// Every property's verdict; one this scenario asserts that did not apply fails.
    private func verdicts(_ trace: ScenarioTrace, _ context: PropertyContext) -> [Verdict] {
        Properties.evaluate(trace, context).map { verdict in
            guard verdict.outcome == .notApplicable, scenario.asserts.contains(verdict.property) else { return verdict }
            var failed = verdict
            failed.outcome = .failed
            failed.summary = "This scenario exists to exercise this property, but it did not apply: \(verdict.summary)"
            return failed
        }
    }

    private struct Outcome {
        var error: String?
        var timedOut = false
        /// The capabilities the app lacks, when the scenario could not be played.
        var unsupported: [String]?
    }

    /// Runs the script, reporting progress, and stops it at the time limit.
    private func runScript(
        _ context: ScenarioContext, progress: @escaping @Sendable (HarnessProgress) -> Void
    ) async -> Outcome {
        let limit = options.timeLimit
        let name = scenario.name
        let script = scenario.script
        let collector = collector
        return await withTaskGroup(of: Outcome?.self) { group in
            group.addTask {
                do {
                    try await script(context)
                    return Outcome()
                } catch is CancellationError {
                    return nil
                } catch ScenarioError.unsupported(let missing) {
                    return Outcome(unsupported: missing)
                } catch {
                    if "\(error)".hasPrefix("protocol error:") { collector.harness(.note("\(error)")) }
                    return Outcome(error: "\(error)")
                }
            }
            group.addTask {
                let started = ContinuousClock.now
                while ContinuousClock.now - started < limit {
                    try? await Task.sleep(for: .milliseconds(500))
                    if Task.isCancelled { return nil }
                    progress(.running(name: name, elapsed: ContinuousClock.now - started, limit: limit, live: collector.live))
                }
                return Outcome(error: "the scenario ran past its time limit of \(limit.seconds) s", timedOut: true)
            }
            let outcome = await group.next() ?? nil
            group.cancelAll()
            return outcome ?? Outcome(error: "the scenario was cancelled")
        }
    }

    private func failed(_ error: String, start: UInt64) -> ScenarioResult {
        collector.harness(.scenarioFinished(name: scenario.name, timedOut: false))
        return ScenarioResult(
            name: scenario.name, summary: scenario.summary, verdicts: [], metrics: ScenarioMetrics(),
            startNanoseconds: start, endNanoseconds: collector.now, error: error)
    }
}
