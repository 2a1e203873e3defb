import BenchCore
import CLibUV

/// Everything the conditioner does, on the loop thread. Other threads reach it
/// only through `LinkConditioner`'s command queue.
///
/// The core is the driver of the pure state machines (the link stages of
/// `InterfaceLinks`, `TimelinePlayer`, `PathPublisher`): it feeds them events and
/// performs the actions they return.
final class ConditionerCore {
    let loop: UnsafeMutablePointer<uv_loop_t>
    let pool = BufferPool()
    let configuration: ConditionerConfiguration
    let epoch: UInt64
    private let sink: any EventSink
    private let pathObserver: (NetworkPath) -> Void
    var interfaces: [InterfaceKind: InterfaceRuntime] = [:]
    var counters: [InterfaceKind: InterfaceCounters] = [:]
    var timeline: TimelinePlayer?
    /// Who decides each interface's state: the profile's phases and the driver's steps.
    var overlay: ProfileOverlay
    var publisher: PathPublisher
    /// The true path last announced with `pathChanged`.
    var knownPath = NetworkPath(interfaces: [])
    var generator: SeededGenerator
    var nextConnectionID: UInt64 = 1
    /// Accepted connections waiting out a slow connect: (deadline, connection).
    var slowConnects: [(UInt64, ConnectionID, InterfaceKind)] = []
    private var deadlineTimer: UVPreciseTimer!
    private var tickTimer: UVTimer!
    private(set) var isStopping = false

    init(loop: UnsafeMutablePointer<uv_loop_t>, configuration: ConditionerConfiguration,
         sink: any EventSink, pathObserver: @escaping (NetworkPath) -> Void) {
        self.loop = loop
        self.configuration = configuration
        self.sink = sink
        self.pathObserver = pathObserver
        let start = uv_hrtime()
        self.epoch = configuration.epoch ?? start
        self.generator = SeededGenerator(seed: configuration.profile.seed)
        self.publisher = PathPublisher(initial: NetworkPath(interfaces: []), now: start)
        self.overlay = ProfileOverlay(initial: configuration.profile.initial, holds: configuration.holds)
        deadlineTimer = UVPreciseTimer(loop: loop)
        deadlineTimer.onFire = { [unowned self] in self.onDeadline() }
        tickTimer = UVTimer(loop: loop)
        tickTimer.onFire = { [unowned self] in self.onTick() }
    }

    /// Monotonic nanoseconds (CLOCK_MONOTONIC, the epoch of `uv_hrtime`).
    var now: UInt64 { uv_hrtime() }

    func emit(_ kind: ConditionerEvent.Kind) {
        let t = now
        sink.record(ConditionerEvent(time: t >= epoch ? t - epoch : 0, kind: kind))
    }

    // MARK: - Start

    /// Binds every listener and starts the timeline. Returns the bound endpoints.
    func start() throws(LibUVError) -> [InterfaceKind: SocketAddress] {
        let profile = configuration.profile
        let startTime = now
        for kind in InterfaceKind.allCases {
            var setup = profile.initial[kind] ?? .defaultSetup(for: kind)
            setup.state = overlay.states[kind] ?? setup.state
            let address = configuration.listeners[kind] ?? SocketAddress(host: "127.0.0.1", port: 0)
            let runtime = InterfaceRuntime(kind: kind, setup: setup, endpoint: address,
                                           generator: generator, now: startTime,
                                           countsRefusals: configuration.countsRefusals)
            interfaces[kind] = runtime
            counters[kind] = InterfaceCounters()
            try openListener(runtime)
            emit(.listening(interface: kind, endpoint: runtime.endpoint.description))
        }
        if configuration.playTimeline {
            timeline = TimelinePlayer(profile: profile, start: startTime)
        }
        knownPath = truePath
        publisher = PathPublisher(initial: truePath, now: startTime)
        emit(.pathChanged(path: truePath))
        emit(.pathPublished(path: truePath))
        pathObserver(truePath)
        let tick = max(1, UInt64(configuration.progressInterval.nanoseconds / 1_000_000))
        tickTimer.start(milliseconds: tick, repeatMilliseconds: tick)
        rearm()
        return interfaces.mapValues(\.endpoint)
    }

    // MARK: - Data path

    /// Bytes were read from a connection: hand them to the link.
    func submit(_ payload: SliceRun, from connection: ProxyConnection, direction: Direction) {
        guard let runtime = interfaces[connection.interface] else { return }
        if runtime.discards(direction) {
            // Thrown away as it arrives: never queued, so never a cause of backpressure.
            counters[runtime.kind]?.countDiscarded(payload.count, direction)
            return
        }
        let queuedAhead = connection[direction].bytesInLink
        connection[direction].bytesInLink += payload.count  // until `perform` delivers them
        if runtime.isForwarding, runtime.setup.link[direction].isTransparent, queuedAhead == 0 {
            // Fast path: nothing to shape, nothing queued ahead; only the faults.
            perform(runtime.links.bypass(payload, of: connection.id, now: now), runtime, direction)
            return
        }
        runtime.links[direction].enqueue(payload, for: connection.id, now: now)
        if runtime.isForwarding { pump(runtime, direction) } else { rearm() }
    }

    /// Lets the link release whatever is due and delivers it.
    func pump(_ runtime: InterfaceRuntime, _ direction: Direction) {
        guard runtime.isForwarding else { return }
        perform(runtime.links.advance(direction, to: now), runtime, direction)
        rearm()
    }

    /// Does what the interface's byte path says, in its order: writes deliveries,
    /// records losses, ends connections whose fault fired.
    private func perform(_ outputs: [LinkOutput<SliceRun>], _ runtime: InterfaceRuntime, _ direction: Direction) {
        for output in outputs {
            switch output {
            case let .deliver(id, payload):
                guard let connection = runtime.connections[id] else { continue }
                connection[direction].bytesInLink -= payload.count
                connection.deliver(payload, direction)
                connection.relieveBackpressure(direction)
            case let .lost(id, bytes, heldUntil):
                counters[runtime.kind]?.countLoss(direction)
                runtime.connections[id]?.stats.packetsLost += 1
                let held = heldUntil > now ? Double(heldUntil - now) / 1e6 : 0
                emit(.packetLost(connection: id, interface: runtime.kind, direction: direction, bytes: bytes,
                                 heldMilliseconds: held))
            case let .fault(id, action):
                runtime.connections[id]?.perform(action)
            }
        }
    }

    func isForwarding(_ kind: InterfaceKind) -> Bool { interfaces[kind]?.isForwarding ?? false }

    /// A connection's fair share of its interface's queue: the limit split between
    /// the interface's connections (never below four MTUs). Pausing each sender at
    /// its share, rather than all of them at a full shared queue, keeps one
    /// connection from filling the bottleneck and starving the others.
    private func queueShare(_ runtime: InterfaceRuntime, _ direction: Direction) -> Int {
        let limit = runtime.queueLimit(direction, default: configuration.defaultQueueLimitBytes)
        return max(4 * BottleneckSettings.mtu, limit / max(1, runtime.connections.count))
    }

    /// Stop reading this direction: its backlog (waiting at the link plus being written) reached its share.
    func isOverLimit(_ connection: ProxyConnection, _ direction: Direction) -> Bool {
        guard let runtime = interfaces[connection.interface] else { return false }
        let own = connection[direction].bytesInLink + connection[direction].bytesInWrite
        return own >= queueShare(runtime, direction)
    }

    /// Read again: the backlog drained below half of its share.
    func isUnderResumeMark(_ connection: ProxyConnection, _ direction: Direction) -> Bool {
        guard let runtime = interfaces[connection.interface] else { return false }
        let own = connection[direction].bytesInLink + connection[direction].bytesInWrite
        return own < queueShare(runtime, direction) / 2
    }

    /// A connection is gone: forget it everywhere and record its final stats.
    func connectionEnded(_ connection: ProxyConnection, reason: String) {
        guard let runtime = interfaces[connection.interface],
              runtime.connections.removeValue(forKey: connection.id) != nil else { return }
        _ = runtime.links.removeConnection(connection.id)
        for direction in Direction.allCases { reportProgress(connection, direction) }
        slowConnects.removeAll { $0.1 == connection.id }
        counters[runtime.kind]?.connectionsClosed += 1
        // One fewer connection: everyone's queue share grew.
        for other in runtime.connections.values {
            for direction in Direction.allCases { other.relieveBackpressure(direction) }
        }
        emit(.connectionClosed(connection: connection.id, interface: runtime.kind, reason: reason, stats: connection.stats))
    }

    // MARK: - Timers

    /// Arms the deadline timer for the earliest thing that is due.
    func rearm() {
        guard !isStopping else { return }
        var earliest: UInt64? = timeline?.nextDeadline()
        func consider(_ t: UInt64?) {
            guard let t else { return }
            earliest = min(earliest ?? t, t)
        }
        consider(publisher.nextDeadline())
        for (deadline, _, _) in slowConnects { consider(deadline) }
        for runtime in interfaces.values where runtime.isForwarding { consider(runtime.nextLinkDeadline()) }
        guard let earliest else { deadlineTimer.disarm(); return }
        deadlineTimer.arm(at: earliest, slack: configuration.timerSlack.nanoseconds)
    }

    private func onDeadline() {
        let current = now
        if var player = timeline {
            let due = player.due(now: current)
            timeline = player
            for phase in due { apply(phase, index: phaseIndex(phase)) }
            if player.isFinished, !due.isEmpty { emit(.timelineFinished) }
        }
        publishDuePaths()
        let ready = slowConnects.filter { $0.0 <= current }
        slowConnects.removeAll { $0.0 <= current }
        for (_, id, kind) in ready {
            guard let runtime = interfaces[kind], let connection = runtime.connections[id] else { continue }
            if runtime.isForwarding { connectNow(connection, runtime) }
        }
        for runtime in interfaces.values {
            fireTimers(runtime)
            for direction in Direction.allCases { pump(runtime, direction) }
        }
        rearm()
    }

    func phaseIndex(_ phase: Phase) -> Int {
        configuration.profile.timeline.firstIndex(of: phase) ?? -1
    }

    func publishDuePaths() {
        for path in publisher.advance(to: now) {
            emit(.pathPublished(path: path))
            pathObserver(path)
        }
    }

    /// Progress events and stall detection.
    private func onTick() {
        let current = now
        let threshold = configuration.stallThreshold.nanoseconds
        for runtime in interfaces.values {
            for connection in runtime.connections.values {
                for direction in Direction.allCases {
                    reportProgress(connection, direction)
                    let pipe = connection[direction]
                    let pending = pipe.bytesInLink + pipe.bytesInWrite
                    if let since = pipe.waitingSince, pipe.stalledSince == nil, pending > 0,
                       current - since >= threshold {
                        connection[direction].stalledSince = since
                        connection.stats.stalls += 1
                        emit(.stalled(connection: connection.id, interface: runtime.kind, direction: direction,
                                      pendingBytes: pending))
                    }
                }
            }
        }
    }

    func reportProgress(_ connection: ProxyConnection, _ direction: Direction) {
        let pipe = connection[direction]
        guard pipe.total > pipe.reported else { return }
        emit(.bytesForwarded(connection: connection.id, interface: connection.interface, direction: direction,
                             bytes: pipe.total - pipe.reported, total: pipe.total))
        connection[direction].reported = pipe.total
    }

    // MARK: - Stop

    /// Closes every connection, listener and timer; the loop then runs out of handles.
    func stop() {
        guard !isStopping else { return }
        for runtime in interfaces.values {
            for connection in Array(runtime.connections.values) { connection.finish(reason: "conditioner stopped") }
            runtime.listener?.closeListener()
            runtime.listener = nil
            runtime.isListening = false
        }
        isStopping = true
        emit(.stopped)
        deadlineTimer.close()
        tickTimer.close()
    }
}
