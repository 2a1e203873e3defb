import BenchCore
import Foundation
import LinkConditioner
import AppProtocol

/// What a scenario's script can do: play the operating system (network path, app
/// lifecycle, termination), play the user (download, pause, cancel, settings), and
/// wait on triggers. Every action is recorded in the trace before or as it happens.
///
/// An actor: the script calls it, and the path relay (the conditioner's published
/// paths, forwarded to the app) calls it too.
public actor ScenarioContext {
    let collector: TraceCollector
    let network: ScenarioNetwork
    let launcher: AgentLauncher
    /// Reads the app's packages itself (at `downloaded` and at each `inspect`).
    let packages: PackageWatch
    /// Where the harness reads the app's storage (in place, or a copy synced before each read).
    let storage: StorageAccess
    private var agent: AgentProcess?
    private var path = NetworkPath(interfaces: [])
    private var foreground = true
    private var allowsCellular = false
    private var generator: SeededGenerator
    /// The highest peak RSS of any agent process of the scenario.
    private(set) var peakRSSBytes = 0
    /// The harness's look at the app's disk at each kill (`ScenarioContext+Disk.swift`).
    let diskWitness = DiskWitness()
    /// Downloads the user cancelled or deleted: an inspection of one also checks the disk.
    var removed: Set<String> = []
    /// Downloads the user paused and has not resumed, cancelled or deleted since.
    var paused: Set<String> = []
    /// Each paused download's first read of the app's storage, under way beside the
    /// script (a second after the pause: the script goes on meanwhile, its timing
    /// unchanged).
    var pausedReads: [String: Task<Void, Never>] = [:]
    /// The video of each download requested.
    var videoOf: [String: String] = [:]
    /// The launches an outside test announced (`announceLaunch`), numbering the pids it did not give.
    var announcedLaunches = 0

    /// The profile the scenario runs under.
    public let profile: Profile
    /// The capabilities the scenario needs the app to declare (`Scenario.needs`).
    let needs: [Capability]
    /// The scenario's executor (its script runs there): tasks the script starts prefer it.
    public nonisolated let executor: DedicatedExecutor?

    init(
        collector: TraceCollector, network: ScenarioNetwork, launcher: AgentLauncher, packages: PackageWatch,
        storage: StorageAccess, seed: UInt64, profile: Profile, needs: [Capability] = [], executor: DedicatedExecutor? = nil
    ) {
        self.storage = storage
        self.executor = executor
        self.profile = profile
        self.needs = needs
        self.collector = collector
        self.network = network
        self.launcher = launcher
        self.packages = packages
        generator = SeededGenerator(seed: seed)
    }

    // MARK: The operating system

    /// Launches the app (the agent process), telling it how the previous one ended,
    /// and hands it the current path and lifecycle: the one it had, or `inForeground`
    /// (a user opening the app after a reboot brings it to the foreground).
    /// - Throws: `ScenarioError.unsupported` when its hello lacks a capability the
    ///   scenario needs (the app is shut down first), or the launch's `AgentProcessError`.
    public func launch(after termination: RelaunchKind = .clean, inForeground: Bool? = nil) async throws {
        if agent != nil { try await kill(reason: "relaunch") }
        collector.agentRelaunched()
        // Stamped when the process starts: the app may report (a force-quit's failures)
        // before it answers hello, and those reports come after this launch.
        let startedAt = collector.now
        let process = try await launcher.launch(after: termination, collector: collector)
        agent = process
        collector.harness(.launched(pid: process.pid, after: termination), at: startedAt)
        if let hello = process.hello {
            // Stamped as the answer was read: the app was up from then on.
            collector.harness(.helloAnswered(
                app: hello.app, capabilities: hello.capabilities.map(\.rawValue).sorted() + hello.otherCapabilities),
                at: process.helloAnsweredAt)
            let missing = needs.filter { !hello.capabilities.contains($0) }.map(\.rawValue)
            if !missing.isEmpty {
                collector.harness(.note("unsupported: the app does not declare \(missing.joined(separator: ", "))"))
                await shutdown()
                throw ScenarioError.unsupported(missing)
            }
        }
        if let inForeground, inForeground != foreground { recordLifecycle(inForeground) }
        try await givePath(path)
        if !foreground { try await send(.setForeground(false)) }
    }

    /// Kills the app with SIGKILL, or its kill command (a crash, or the user swiping it
    /// away: `reason`); once it is gone, records what its disk holds (`.harness(.diskAtKill)`).
    /// - Throws: `AgentProcessError.killFailed` when the app could not be killed: the
    ///   scenario ends with that error, never a pass.
    public func kill(reason: String) async throws {
        guard let process = agent else { return }
        let killedAt = collector.now
        collector.harness(.killed(pid: process.pid, reason: reason), at: killedAt)
        do { try await process.kill(reason: reason) } catch {
            peakRSSBytes = max(peakRSSBytes, process.peakRSSBytes)
            agent = nil
            packages.agentKilled()
            throw error
        }
        packages.agentKilled()
        peakRSSBytes = max(peakRSSBytes, process.peakRSSBytes)
        agent = nil
        await recordDisk(pid: process.pid, killedAt: killedAt)
    }

    /// Kills the app and launches it again told it ended as `termination`.
    public func crashAndRelaunch(_ termination: RelaunchKind = .crash, inForeground: Bool? = nil) async throws {
        try await kill(reason: termination.rawValue)
        try await launch(after: termination, inForeground: inForeground)
    }

    /// Shuts the app down cleanly (end of the scenario).
    func shutdown() async {
        for read in pausedReads.values { await read.value }
        pausedReads = [:]
        guard let process = agent else { return await packages.drain() }
        let status = await process.shutdown(timeout: .seconds(10))
        peakRSSBytes = max(peakRSSBytes, process.peakRSSBytes)
        collector.harness(.agentExited(pid: process.pid, status: status ?? -1))
        packages.agentEnded()
        agent = nil
        await packages.drain()
    }

    /// Takes an interface down (`mode`) or brings it up. The conditioner publishes the
    /// new path to the app at once, or never when `publish` is false (a link that dies
    /// without the OS noticing: only a stall timeout can tell).
    public func setInterface(_ kind: InterfaceKind, up: Bool, mode: DownMode = .reset, publish: Bool = true) {
        setInterface(kind, up: up, mode: mode, pathUpdate: publish ? .immediate : .withheld)
    }

    /// Takes an interface down (`mode`) or brings it up; the conditioner publishes the
    /// new path to the app as `pathUpdate` says (at once, late, or never).
    public func setInterface(_ kind: InterfaceKind, up: Bool, mode: DownMode = .reset, pathUpdate: PathUpdatePolicy) {
        collector.harness(.interfaceSet(kind, up: up, mode: up ? nil : mode))
        network.conditioner.setState(kind, up ? .up : .down(mode), pathUpdate: pathUpdate)
    }

    /// Ends every connection open on `kind` (RST or FIN both sides) while it stays up;
    /// recorded as a note, and in the conditioner's events as each connection ends.
    public func cutConnections(_ kind: InterfaceKind, _ cut: ConnectionCut) {
        collector.harness(.note("cut every connection open on \(kind.rawValue) (\(cut.rawValue)) while it stays up"))
        network.conditioner.cutConnections(kind, cut)
    }

    /// The conditioner published `path`: the app is told (relay).
    func pathPublished(_ path: NetworkPath) async {
        self.path = path
        collector.harness(.pathGiven(interfaces: path.interfaces.map(\.kind)))
        guard agent != nil else { return }
        try? await givePath(path)
    }

    /// Sends the app `path`; its reply is recorded (`pathAcknowledged`) as it is read.
    private func givePath(_ path: NetworkPath) async throws {
        guard let agent else { throw ScenarioError.script("the app is not running") }
        let collector = collector
        let interfaces = path.interfaces.map(\.kind)
        _ = try await agent.send(.setPath(path)) { collector.acknowledged(.pathAcknowledged(interfaces: interfaces)) }
    }

    /// Waits until the app was given a path with exactly `interfaces` up.
    public func waitForPath(_ interfaces: Set<InterfaceKind>, timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        while Set(path.interfaces.map(\.kind)) != interfaces {
            guard ContinuousClock.now < deadline else {
                throw ScenarioError.timedOut("the path to show \(interfaces.map(\.rawValue).sorted())")
            }
            try await Timekeeper.shared.sleep(for: .milliseconds(20))
        }
    }

    /// Moves the app to the foreground or the background; the license server is told first.
    public func setForeground(_ foreground: Bool) async throws {
        recordLifecycle(foreground)
        try await send(.setForeground(foreground))
    }

    /// The lifecycle change, in the trace and at the license server (told first when
    /// the app leaves the foreground, last when it returns).
    func recordLifecycle(_ foreground: Bool, at t: UInt64? = nil) {
        self.foreground = foreground
        if !foreground {
            collector.harness(.lifecycle(foreground: false), at: t)
            network.origin.licenseServer.setAppInBackground(true)
            collector.harness(.licenseServerBackground(true))
        } else {
            network.origin.licenseServer.setAppInBackground(false)
            collector.harness(.licenseServerBackground(false))
            collector.harness(.lifecycle(foreground: true), at: t)
        }
    }

    /// Asks the app to get ready for the background; returns the downloads it says
    /// still lack a license.
    @discardableResult
    public func prepareForBackground() async throws -> [String: String] {
        collector.harness(.preparingForBackground)
        let reply = try await send(.prepareForBackground)
        guard case .unfinished(let unfinished) = reply else { return [:] }
        collector.harness(.preparedForBackground(unfinished: unfinished.keys.sorted()))
        return unfinished
    }

    // MARK: The user

    /// Requests a download of `video`; returns its token. Its `.harness(.downloadRequested)`
    /// is stamped when the user asked, before the app was told: the reply may be read
    /// late (while a package the app finished is being read), and what the app did for
    /// the download meanwhile (its first segments) comes after the request in the trace.
    public func request(
        _ video: String, allowsCellular: Bool? = nil, rentalSeconds: Int? = nil
    ) async throws -> String {
        guard let (document, url) = network.document(video) else { throw ScenarioError.script("no video \(video)") }
        diskWitness.requested(video)
        let effective = allowsCellular ?? self.allowsCellular
        let protected = document.sources.contains { $0.keySystems?.contains { $0.licenseURL != nil } ?? false }
        let request = AppDownloadRequest(
            video: document, catalogURL: url, allowsCellular: allowsCellular, rentalSeconds: rentalSeconds)
        let t = collector.now
        do {
            guard case .download(let token) = try await send(.request(request)) else {
                throw ScenarioError.script("the agent answered a download request without a token")
            }
            packages.requested(token, video: video)
            videoOf[token] = video
            collector.harness(.downloadRequested(
                video: video, download: token, allowsCellular: effective, protected: protected, error: nil), at: t)
            recordLicenseKey(of: document, for: token)
            return token
        } catch {
            collector.harness(.downloadRequested(
                video: video, download: nil, allowsCellular: effective, protected: protected, error: "\(error)"), at: t)
            throw error
        }
    }

    /// A user action on a download. Its `.harness(.userAction)` is stamped when the
    /// user acted, before the app was told (so what the app did about it comes after
    /// it in the trace), and written once the app answered (with its refusal, if any).
    public func user(_ action: UserAction, _ token: String) async throws {
        let command: AppCommand = switch action {
        case .pause: .pause(download: token)
        case .resume: .resume(download: token)
        case .cancel: .cancel(download: token)
        case .delete: .delete(download: token)
        }
        if action == .resume, paused.contains(token) {
            await pausedReads.removeValue(forKey: token)?.value
            await recordPausedDisk(of: token)
        }
        let t = collector.now
        do {
            try await send(command)
            collector.harness(.userAction(action: action.rawValue, download: token, error: nil), at: t)
            if action == .cancel || action == .delete { removed.insert(token) }
            if action == .pause {
                paused.insert(token)
                // What was in flight at the reply has landed (or been dropped) a second later.
                pausedReads[token] = Task(executorPreference: executor) {
                    guard (try? await Timekeeper.shared.sleep(for: Self.pausedDiskDelay)) != nil else { return }
                    await self.recordPausedDisk(of: token)
                }
            } else {
                paused.remove(token)
            }
        } catch {
            collector.harness(.userAction(action: action.rawValue, download: token, error: "\(error)"), at: t)
            throw error
        }
    }

    /// The user's cellular setting, for downloads requested after it.
    public func setAllowsCellular(_ allowed: Bool) async throws {
        allowsCellular = allowed
        collector.harness(.allowsCellularSet(allowed))
        try await send(.setAllowsCellular(allowed))
    }

    /// What the app says it has stored for `token` (recorded as `.harness(.inspected)`),
    /// and what the harness finds in the package it names (`.harness(.packageRead)`).
    @discardableResult
    public func inspect(_ token: String) async throws -> AppInspection {
        guard case .inspection(let inspection) = try await send(.inspect(download: token)) else {
            throw ScenarioError.script("the app answered an inspection without one")
        }
        collector.harness(.inspected(inspection))
        await packages.inspected(inspection)
        if removed.contains(token) { await recordLeftovers(of: token) }
        return inspection
    }

    // MARK: Triggers

    /// Waits until `condition` holds on the live view of the app, and no package read
    /// it may have caused is still under way.
    public func wait(
        _ what: String, timeout: Duration = .seconds(120), until condition: @Sendable (LiveState) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(collector.live) || packages.isBusy {
            if let violation = agent?.protocolViolation { throw ScenarioError.protocolBroken(violation.description) }
            if let agent, !agent.isRunning {
                throw ScenarioError.agentDied(
                    "while waiting for \(what)", status: agent.exitStatus, stderr: agent.stderrPath)
            }
            guard ContinuousClock.now < deadline else { throw ScenarioError.timedOut(what) }
            try await Timekeeper.shared.sleep(for: .milliseconds(25))
        }
        collector.harness(.note("trigger met: \(what)"))
    }

    /// Waits until every download of `tokens` is downloaded (or failed: the properties judge).
    public func waitSettled(_ tokens: [String], timeout: Duration = .seconds(180)) async throws {
        try await wait("\(tokens.count == 1 ? "the download" : "every download") to settle", timeout: timeout) { live in
            tokens.allSatisfy { [.downloaded, .failed].contains(live.states[$0]) }
        }
    }

    /// Sleeps `duration` of wall time (a `Timekeeper` timer: it wakes on time however
    /// busy Swift's cooperative pool is).
    public func hold(_ duration: Duration) async throws {
        try await Timekeeper.shared.sleep(for: duration)
    }

    /// A seeded random number in `range`.
    public func random(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &generator)
    }

    /// A note for the report.
    public func note(_ text: String) {
        collector.harness(.note(text))
    }

    @discardableResult
    private func send(_ command: AppCommand) async throws -> AppReplyValue {
        guard let agent else { throw ScenarioError.script("the app is not running") }
        return try await agent.send(command)
    }
}

/// A user action on a download.
public enum UserAction: String, Sendable {
    case pause, resume, cancel, delete
}
