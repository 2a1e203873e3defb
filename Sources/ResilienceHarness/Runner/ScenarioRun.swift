import BenchCore
import Foundation
import AppProtocol
import LinkConditioner
import Synchronization

/// Counts this process's scenario runs, so that two runs of one scenario with one seed
/// at once (two engines of a matrix, two test suites) never share a storage directory.
private let scenarioRunCount = Atomic<Int>(0)

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

    /// Plays the scenario on an executor of its own (`DedicatedExecutor`: its script, its
    /// clock and its waits never wait for Swift's cooperative pool), then judges it off
    /// the pool (`OffPool`).
    func run(progress: @escaping @Sendable (HarnessProgress) -> Void) async -> ScenarioResult {
        let executor = DedicatedExecutor(name: "scenario-\(scenario.name)")
        defer { executor.shutdown() }
        let played = await executor.run { await play(on: executor, progress: progress) }
        switch played {
        case .failed(let result): return result
        case .played(let played): return await OffPool.run { judge(played) }
        }
    }

    /// What a played scenario leaves for the judge.
    private struct Played: Sendable {
        var entries: [TraceEntry]
        var start: UInt64
        var end: UInt64
        var links: [InterfaceKind: InterfaceLink]
        var origin: OriginCatalogView
        var peakRSSBytes: Int
        var outcome: Outcome
        var stderr: [LaunchLog]
    }

    private enum Playing: Sendable {
        case failed(ScenarioResult)
        case played(Played)
    }

    /// Network up, script under its time limit, app shut down, logs absorbed: on `executor`.
    private func play(on executor: DedicatedExecutor, progress: @escaping @Sendable (HarnessProgress) -> Void) async -> Playing {
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
                collector: collector, interfacesStart: scenario.interfacesStart, tls: options.https?.authority,
                recorded: options.recorded, interception: options.interception, observer: options.conditionerObserver)
        } catch {
            return .failed(failed("could not start the scenario's origin and conditioner: \(error)", start: start))
        }
        let originFaults = OriginFaultPlayer.start(
            profile.origin, origin: network.origin, collector: collector, start: collector.now)
        let runNumber = scenarioRunCount.wrappingAdd(1, ordering: .relaxed).newValue
        let storage = (options.workDirectory as NSString)
            .appendingPathComponent("deadzone-\(scenario.name)-\(getpid())-\(seed)-\(runNumber)")
        // Each launch's stderr, beside the storage (out of the app's sight), read into the
        // result when the scenario ends; both removed then.
        let stderrDirectory = storage + "-stderr"
        defer {
            try? FileManager.default.removeItem(atPath: storage)
            try? FileManager.default.removeItem(atPath: stderrDirectory)
        }
        try? FileManager.default.createDirectory(atPath: stderrDirectory, withIntermediateDirectories: true)
        let origin = OriginCatalogView(store: network.origin.store)
        let access = Self.storageAccess(local: storage, launch: options.appLaunch, collector: collector)
        let packages = PackageWatch(collector: collector, origin: origin, storage: access)
        let launcher = AgentLauncher(
            app: options.appLaunch, storage: access.app, helloTimeout: options.helloTimeout, packages: packages,
            stderrDirectory: stderrDirectory)
        let context = ScenarioContext(
            collector: collector, network: network, launcher: launcher, packages: packages, storage: access, seed: seed,
            profile: profile, needs: scenario.needs, executor: executor)
        let relay = Task(executorPreference: executor) {
            for await path in network.conditioner.pathUpdates { await context.pathPublished(path) }
        }
        var outcome = await runScript(context, progress: progress)
        originFaults?.cancel()
        await context.shutdown()
        collector.harness(.scenarioFinished(name: scenario.name, timedOut: outcome.timedOut))
        collector.absorb(origin: network.origin.requestLog, interfaces: network.interfaces)
        collector.absorb(license: network.origin.licenseServer.records)
        relay.cancel()
        if let failure = access.failure, outcome.error == nil, outcome.unsupported == nil { outcome.error = failure }
        if outcome.error == nil, outcome.unsupported == nil, let stale = network.recordingMismatch() { outcome.error = stale }
        let entries = collector.entries(from: first)
        await network.stop()
        let peak = await context.peakRSSBytes
        let logs = (0..<launcher.launches.count).compactMap { index in
            LaunchLog.read(launch: index + 1, path: AgentLauncher.stderrFile(index + 1, in: stderrDirectory))
        }.filter { $0.bytes > 0 }
        return .played(Played(
            entries: entries, start: start, end: collector.now, links: network.links, origin: origin,
            peakRSSBytes: peak, outcome: outcome, stderr: logs))
    }

    /// The storage syncs the trace records; nil when there were none.
    static func storageSyncs(_ trace: ScenarioTrace) -> [StorageSync]? {
        let syncs = trace.entries.compactMap { entry -> StorageSync? in
            guard case let .harness(.storageSynced(read, seconds, error)) = entry.event else { return nil }
            return StorageSync(t: entry.t, read: read, seconds: seconds, error: error)
        }
        return syncs.isEmpty ? nil : syncs
    }

    /// How the scenario's storage is read: in place at `local`, or, for an app whose
    /// storage is elsewhere (`AppLaunch.remoteStorage`), copied there by its sync command
    /// from the directory of the same name under the app's.
    private static func storageAccess(local: String, launch: AppLaunch, collector: TraceCollector) -> StorageAccess {
        guard let remote = launch.remoteStorage else { return StorageAccess(local: local) }
        let app = (remote.appDirectory as NSString).appendingPathComponent((local as NSString).lastPathComponent)
        return StorageAccess(
            local: local, app: app, command: remote.syncCommand, environment: [AppLaunch.Variable.storage: app],
            collector: collector)
    }

    /// The verdicts, preconditions and metrics of a played scenario: a pure function of
    /// what it recorded (CPU work: run it off the pool).
    private func judge(_ played: Played) -> ScenarioResult {
        let trace = ScenarioTrace(played.entries, recordedPaths: options.recorded.videoOfPath)
        let outcome = played.outcome
        var bounds = options.bounds
        bounds.renditions = OriginRenditions(played.origin.layout(ofVideos: trace.downloads.map(\.video)))
        bounds.hashManifest = played.origin.manifest(claimedIn: trace)
        bounds.offlineDisabled = played.origin.offlineDisabledVideos
        bounds.epochWallClock = collector.epochWallClock
        bounds.minimumCrashRestarts = scenario.minimumCrashRestarts
        bounds.stallTimeout = options.stallTimeout
        bounds.unreachable = reachability(trace, links: played.links, start: played.start)
        var metrics = ScenarioMetrics.measure(trace)
        metrics.agentPeakRSSBytes = played.peakRSSBytes > 0 ? played.peakRSSBytes : nil
        if let missing = outcome.unsupported {
            // Not played: no verdict, no precondition; reported unsupported, never passed.
            return ScenarioResult(
                name: scenario.name, summary: scenario.summary, verdicts: [], metrics: ScenarioMetrics(),
                startNanoseconds: played.start, endNanoseconds: played.end, unsupported: missing, load: outcome.load,
                stderr: played.stderr.isEmpty ? nil : played.stderr, asserts: scenario.asserts)
        }
        let coverage = SituationModel.coverage(of: SituationFinder.situations(in: trace, renditions: bounds.renditions))
        return ScenarioResult(
            name: scenario.name, summary: scenario.summary, verdicts: verdicts(trace, bounds), metrics: metrics,
            startNanoseconds: played.start, endNanoseconds: played.end, error: outcome.error,
            preconditions: scenario.preconditions.map { $0.evaluate(trace, bounds) }, load: outcome.load,
            coverage: coverage, stderr: played.stderr.isEmpty ? nil : played.stderr, asserts: scenario.asserts,
            storageSyncs: Self.storageSyncs(trace),
            downloads: trace.downloads.isEmpty ? nil : trace.downloads.map { DownloadName(token: $0.token, video: $0.video) }
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

    private struct Outcome: Sendable {
        var error: String?
        var timedOut = false
        /// The capabilities the app lacks, when the scenario could not be played.
        var unsupported: [String]?
        /// The load the scenario's probes saw.
        var load: ScenarioLoad?
    }

    /// How often the scenario's clock ticks: it samples its own lateness, the load and
    /// the time limit at each tick, and reports progress every fifth.
    static let clockTick = Duration.milliseconds(100)

    /// Runs the script, reporting progress and sampling the load as its clock ticks, and
    /// stops it at the time limit. The clock is a child task (on the scenario's executor)
    /// sleeping on `Timekeeper`; a probe task on the cooperative pool measures the pool's
    /// lateness beside it.
    private func runScript(
        _ context: ScenarioContext, progress: @escaping @Sendable (HarnessProgress) -> Void
    ) async -> Outcome {
        let limit = options.timeLimit
        let name = scenario.name
        let script = scenario.script
        let collector = collector
        let load = load
        let meter = LoadMeter()
        let poolProbe = Task.detached { await meter.pool.run(every: Self.clockTick) }
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
                var ticks = 0
                while ContinuousClock.now - started < limit {
                    do { try await meter.harnessClock.tick(Self.clockTick) } catch { return nil }
                    meter.tick(playing: load.count)
                    ticks += 1
                    if ticks % 5 == 0 {
                        progress(.running(name: name, elapsed: ContinuousClock.now - started, limit: limit, live: collector.live))
                    }
                }
                return Outcome(error: "the scenario ran past its time limit of \(limit.seconds) s", timedOut: true)
            }
            let outcome = await group.next() ?? nil
            group.cancelAll()
            return outcome ?? Outcome(error: "the scenario was cancelled")
        }
        poolProbe.cancel()
        outcome.load = meter.load
        return outcome
    }

    private func failed(_ error: String, start: UInt64) -> ScenarioResult {
        collector.harness(.scenarioFinished(name: scenario.name, timedOut: false))
        return ScenarioResult(
            name: scenario.name, summary: scenario.summary, verdicts: [], metrics: ScenarioMetrics(),
            startNanoseconds: start, endNanoseconds: collector.now, error: error, asserts: scenario.asserts)
    }
}
