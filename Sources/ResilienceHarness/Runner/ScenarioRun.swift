import BenchCore
import Foundation
import AppProtocol
import LinkConditioner

/// One scenario's run: network up, script under its time limit, app shut down, logs
/// absorbed, properties judged. `collector` is the scenario's own (`TraceCollector.scenario`).
struct ScenarioRun {
    let scenario: Scenario
    let options: HarnessOptions
    let seed: UInt64
    let collector: TraceCollector
    let load: RunLoad

    /// The profile as this scenario plays it: from `profileFrom` into its timeline.
    var profile: Profile { options.profile.starting(at: scenario.profileFrom) }

    func run(progress: @escaping @Sendable (HarnessProgress) -> Void) async -> ScenarioResult {
        let first = collector.count
        let start = collector.now
        collector.scenarioStarted()
        collector.harness(.scenarioStarted(name: scenario.name, profile: options.profile.name, seed: seed))
        if scenario.profileFrom > .zero {
            collector.harness(.note("the profile \(options.profile.name) plays from \(Units.format(scenario.profileFrom)) "
                + "into its timeline (profile-from)"))
        }
        // Every interface starts down, held by the scenario until its script brings it up,
        // or as the profile says.
        for kind in InterfaceKind.allCases {
            let state = scenario.interfacesStart == .asProfile ? profile.initial[kind]?.state ?? .up : .down(.refuse)
            switch state {
            case .up: collector.harness(.interfaceSet(kind, up: true, mode: nil))
            case .down(let mode): collector.harness(.interfaceSet(kind, up: false, mode: mode))
            }
        }
        let network: ScenarioNetwork
        do {
            network = try await ScenarioNetwork.start(
                profile: profile, focus: scenario.focus, targetSeconds: scenario.targetSeconds, seed: seed,
                collector: collector, interfacesStart: scenario.interfacesStart)
        } catch {
            return failed("could not start the scenario's origin and conditioner: \(error)", start: start)
        }
        let originFaults = OriginFaultPlayer.start(
            profile.origin, origin: network.origin, collector: collector, start: collector.now)
        let storage = (options.workDirectory as NSString)
            .appendingPathComponent("deadzone-\(scenario.name)-\(getpid())-\(seed)")
        defer { try? FileManager.default.removeItem(atPath: storage) }
        let origin = OriginCatalogView(store: network.origin.store)
        let packages = PackageWatch(collector: collector, origin: origin)
        let launcher = AgentLauncher(
            app: options.app, storage: storage, helloTimeout: options.helloTimeout, packages: packages)
        let context = ScenarioContext(
            collector: collector, network: network, launcher: launcher, packages: packages, seed: seed,
            profile: profile, needs: scenario.needs)
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
                startNanoseconds: start, endNanoseconds: collector.now, unsupported: missing, load: outcome.load.load)
        }
        return ScenarioResult(
            name: scenario.name, summary: scenario.summary, verdicts: verdicts(trace, bounds), metrics: metrics,
            startNanoseconds: start, endNanoseconds: collector.now, error: outcome.error,
            preconditions: scenario.preconditions.map { $0.evaluate(trace, bounds) }, load: outcome.load.load
        ).notingLoad()
    }

    /// When the links the conditioner was given delivered nothing: the scenario's
    /// links from `start`, changed by each timeline phase the conditioner applied.
    private func reachability(_ trace: ScenarioTrace, links: [InterfaceKind: InterfaceLink], start: UInt64)
        -> LinkReachability
    {
        let timeline = profile.timeline.map(ScenarioNetwork.shaped)
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
        /// The load the script's progress timer saw.
        var load = LoadSample()
    }

    /// Runs the script, reporting progress and sampling the load every half second, and
    /// stops it at the time limit.
    private func runScript(
        _ context: ScenarioContext, progress: @escaping @Sendable (HarnessProgress) -> Void
    ) async -> Outcome {
        let limit = options.timeLimit
        let name = scenario.name
        let script = scenario.script
        let collector = collector
        let load = load
        let sample = LoadMeter()
        var outcome = await withTaskGroup(of: Outcome?.self) { group in
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
                let tick = Duration.milliseconds(500)
                while ContinuousClock.now - started < limit {
                    let before = ContinuousClock.now
                    try? await Task.sleep(for: tick)
                    if Task.isCancelled { return nil }
                    let elapsed = ContinuousClock.now - before
                    sample.tick(interval: tick, elapsed: elapsed, playing: load.count)
                    progress(.running(name: name, elapsed: ContinuousClock.now - started, limit: limit, live: collector.live))
                }
                return Outcome(error: "the scenario ran past its time limit of \(limit.seconds) s", timedOut: true)
            }
            let outcome = await group.next() ?? nil
            group.cancelAll()
            return outcome ?? Outcome(error: "the scenario was cancelled")
        }
        outcome.load = sample.sample
        return outcome
    }

    private func failed(_ error: String, start: UInt64) -> ScenarioResult {
        collector.harness(.scenarioFinished(name: scenario.name, timedOut: false))
        return ScenarioResult(
            name: scenario.name, summary: scenario.summary, verdicts: [], metrics: ScenarioMetrics(),
            startNanoseconds: start, endNanoseconds: collector.now, error: error)
    }
}
