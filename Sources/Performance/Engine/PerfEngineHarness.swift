import BenchCore
import FixtureOrigin
import Foundation
import LinkConditioner
import Synchronization

/// One download run of `bench perf engine`: which videos, at which bitrate, over which link.
struct PerfEngineScenario: Sendable {
    var videos: [String]
    /// `--bitrate` of `bench download` (the first variant at or above it).
    var bitrate: Int
    /// Random resets per MiB forwarded on a connection (0: none).
    var resetProbabilityPerMiB: Double = 0
}

/// What one run measured.
struct PerfEngineRun: Sendable {
    var scenario: PerfEngineScenario
    var linkBitsPerSecond: Double
    var child: PerfEngineChildResult
    var content: PerfEngineContent
    /// wifi counters of the conditioner: bytes sent to the engine, and from it.
    var downlinkBytes: Int
    var uplinkBytes: Int
    var connections: Int
    /// Connections the conditioner reset at random (ConnectionFaults), and all resets it counted.
    var randomResets: Int
    var resets: Int
    /// The origin's request log for this run.
    var requests: [OriginRequestRecord]
    /// Every connection through the conditioner.
    var connectionList: [PerfEngineConnection]

    var waste: PerfEngineWaste { PerfEngineWaste(connections: connectionList, requests: requests) }

    /// Whether the child exited 0 and every stored byte is the origin's.
    var isComplete: Bool { child.succeeded && content.isExact }

    /// Why the run is not complete, or nil.
    var failure: String? {
        guard !isComplete else { return nil }
        var reasons: [String] = []
        if !child.succeeded { reasons.append("bench download: \(child.ending); output: \(child.tail(4))") }
        if content.files == 0 && content.problems.isEmpty { reasons.append("no media file was stored") }
        reasons += content.problems.prefix(3)
        if content.problems.count > 3 { reasons.append("… \(content.problems.count - 3) more problems") }
        return reasons.joined(separator: "; ")
    }

    /// Content bytes over wall time (launch to exit), in bits per second.
    var goodput: Double { Double(content.bytes) * 8 / max(child.wallSeconds, 1e-9) }

    /// The instant (s after launch) of the first output line that satisfies `predicate`.
    func firstLine(where predicate: (String) -> Bool) -> Double? { child.lines.first { predicate($0.text) }?.seconds }
    func lastLine(where predicate: (String) -> Bool) -> Double? { child.lines.last { predicate($0.text) }?.seconds }
}

/// Counts what the conditioner reports, on its loop thread (atomics and one short lock:
/// the sink must be quick).
final class PerfEngineEventCounter: EventSink {
    let accepted = PerfCounter()
    let resets = PerfCounter()
    let randomResets = PerfCounter()
    let connections = Mutex<[ConnectionID: PerfEngineConnection]>([:])

    func record(_ event: ConditionerEvent) {
        switch event.kind {
        case .connectionAccepted(let id, _, let peer):
            accepted.add(1)
            connections.withLock { $0[id, default: PerfEngineConnection()].peer = peer }
        case .connectionReset(let id, _, let reason):
            resets.add(1)
            if reason.hasPrefix("random reset") { randomResets.add(1) }
            connections.withLock {
                $0[id, default: PerfEngineConnection()].wasReset = true
                $0[id, default: PerfEngineConnection()].ending = reason
            }
        case .connectionClosed(let id, _, let reason, let stats):
            connections.withLock {
                $0[id, default: PerfEngineConnection()].downlinkBytes = stats.bytesDownlink
                if $0[id]?.ending == nil { $0[id]?.ending = reason }
            }
        default: break
        }
    }

    /// Every connection, completed with the snapshot's figures for those not closed yet.
    func all(_ snapshot: ConditionerSnapshot) -> [PerfEngineConnection] {
        connections.withLock { known in
            for open in snapshot.connections where known[open.id]?.ending == nil {
                known[open.id, default: PerfEngineConnection()].peer = open.peer
                known[open.id]?.downlinkBytes = open.stats.bytesDownlink
            }
            return known.keys.sorted().compactMap { known[$0] }
        }
    }
}

/// Runs `bench download` as a child process through an in-process `LinkConditioner`
/// (wifi only) in front of the in-process origin, then checks what it stored.
enum PerfEngineHarness {
    /// The origin of the whole run: synthetic media, `sizeScale`, `large` `largeVideoDuration` s long.
    static func startOrigin(sizeScale: Double, largeVideoDuration: Double) async throws -> OriginServer {
        var configuration = OriginConfiguration()
        configuration.catalog = CatalogConfiguration(seed: 1, sizeScale: sizeScale, largeVideoDuration: largeVideoDuration)
        configuration.threads = 2
        return try await OriginServer.start(configuration: configuration)
    }

    /// Bytes the engine should store for `scenario`: each video's variant at `bitrate`
    /// (as `bench download` picks it), from the catalog's nominal sizes.
    static func estimatedBytes(_ scenario: PerfEngineScenario, store: ContentStore) -> Double {
        let ladder = Catalog.standardVariants.filter { $0.resolution != nil }.sorted { $0.bandwidth < $1.bandwidth }
        let bandwidth = (ladder.first { $0.bandwidth >= scenario.bitrate } ?? ladder.last)?.bandwidth ?? scenario.bitrate
        return scenario.videos.compactMap { store.catalog.video(withID: $0) }
            .map { Double(bandwidth) / 8 * $0.duration * store.catalog.configuration.sizeScale }
            .reduce(0, +)
    }

    /// One download of `scenario` by a `bench download` child (`benchExecutable`, nil: this
    /// process's executable); its storage is removed afterwards unless `keepStorage`.
    static func run(_ scenario: PerfEngineScenario, origin: OriginServer, linkBitsPerSecond: Double, seed: UInt64,
                    storageParent: String, keepStorage: Bool, benchExecutable: String?,
                    progress: @Sendable (PerfProgress) -> Void) async throws -> PerfEngineRun {
        let storage = (storageParent as NSString)
            .appendingPathComponent("deadzone-perf-engine-\(getpid())-\(PerfClock.now())")
        defer { if !keepStorage { try? FileManager.default.removeItem(atPath: storage) } }
        let counter = PerfEngineEventCounter()
        let conditioner = try await startConditioner(upstreamPort: origin.port, linkBitsPerSecond: linkBitsPerSecond,
                                               resetProbabilityPerMiB: scenario.resetProbabilityPerMiB, seed: seed,
                                               sink: counter)
        defer { conditioner.stop() }
        guard let wifi = conditioner.endpoints[.wifi] else { throw PerfError("the conditioner has no wifi endpoint") }

        let logStart = origin.requestLog.count
        // Time limit: ten times the ideal transfer time, at least a minute.
        let ideal = estimatedBytes(scenario, store: origin.store) * 8 / linkBitsPerSecond
        let arguments = ["download"] + scenario.videos.map { "http://127.0.0.1:\(origin.port)/videos/\($0)" }
            + ["--storage", storage, "--via", "\(wifi.host):\(wifi.port)", "--bitrate", String(scenario.bitrate)]
        let child = try await PerfEngineChild.run(executable: benchExecutable, arguments: arguments, timeLimit: max(60, ideal * 10))
        let snapshot = await conditioner.snapshot()
        await conditioner.stop()
        let counters = snapshot.interface(.wifi)?.counters ?? InterfaceCounters()
        let requests = Array(origin.requestLog.dropFirst(logStart))
        let content = await PerfEngineVerify.check(storage: storage, videoIDs: scenario.videos, store: origin.store)
        if keepStorage { progress(.notice("kept the engine's storage: \(storage)")) }
        return PerfEngineRun(
            scenario: scenario, linkBitsPerSecond: linkBitsPerSecond, child: child, content: content,
            downlinkBytes: counters.bytesDownlink, uplinkBytes: counters.bytesUplink,
            connections: max(counters.connectionsAccepted, counter.accepted.current),
            randomResets: counter.randomResets.current, resets: max(counters.connectionsReset, counter.resets.current),
            requests: requests, connectionList: counter.all(snapshot))
    }

    /// A conditioner whose wifi downlink is `linkBitsPerSecond` (no delay, no loss), uplink
    /// unshaped, with random resets at `resetProbabilityPerMiB`; the engine uses wifi only.
    private static func startConditioner(upstreamPort: Int, linkBitsPerSecond: Double, resetProbabilityPerMiB: Double,
                                         seed: UInt64, sink: any EventSink) async throws -> LinkConditioner {
        let link = InterfaceLink(
            downlink: LinkDirectionParameters(rate: .constant(bitsPerSecond: linkBitsPerSecond)),
            faults: ConnectionFaults(resetProbabilityPerMB: resetProbabilityPerMiB))
        let profile = Profile(name: "perf-engine", description: "bench perf engine", seed: seed, duration: .seconds(3600),
                              initial: [.wifi: InterfaceSetup(state: .up, link: link)])
        let configuration = ConditionerConfiguration(
            upstream: SocketAddress(host: "127.0.0.1", port: UInt16(upstreamPort)), proxyProtocol: true, profile: profile)
        return try await LinkConditioner.start(configuration: configuration, sink: sink)
    }
}
