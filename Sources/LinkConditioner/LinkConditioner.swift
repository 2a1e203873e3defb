import BenchCore
import CLibUV
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The link conditioner: a libuv TCP proxy with one listener per interface that
/// makes the network between a client and an origin as bad as a profile says.
///
/// `start` spawns the loop thread and returns once every listener is bound.
/// Every other method may be called from any thread: commands go through a
/// locked queue drained on the loop thread by a `uv_async_t`. `stop` closes every
/// handle, closes the loop and joins the thread. From async code use the async forms
/// of `start` and `stop`: their waits hold no thread of Swift's cooperative pool.
///
/// `@unchecked Sendable` is sound: every stored property is immutable and
/// Sendable (`channel` keeps its state in `Mutex`es, `stopped` is a `Mutex`),
/// except `thread`, whose `pthread_t` is a pointer type on Darwin; it is written
/// once in `start` and only read again by `pthread_join` in `stop`, which the
/// `stopped` lock lets exactly one caller reach.
public final class LinkConditioner: @unchecked Sendable {
    /// The address each interface listens on (ports resolved).
    public let endpoints: [InterfaceKind: SocketAddress]
    /// Nanoseconds (CLOCK_MONOTONIC) that event times are measured from.
    public let epoch: UInt64
    /// Path updates as published to the app (possibly late or withheld, per profile).
    public let pathUpdates: AsyncStream<NetworkPath>

    private let channel: CommandChannel
    /// The loop thread's OS-visible name (for diagnostics and leak checks).
    public let threadName: String
    private let thread: pthread_t
    private let stopped = Mutex(false)

    private init(endpoints: [InterfaceKind: SocketAddress], epoch: UInt64, thread: pthread_t,
                 channel: CommandChannel, paths: AsyncStream<NetworkPath>, threadName: String) {
        self.threadName = threadName
        self.endpoints = endpoints
        self.epoch = epoch
        self.thread = thread
        self.channel = channel
        self.pathUpdates = paths
    }

    /// Starts the loop thread, binds the listeners and begins playing the profile.
    /// Blocks the calling thread until the listeners are bound: from async code, use the
    /// async `start`.
    /// - Throws: `LibUVError` when a listener cannot be bound (address in use, not local).
    ///
    /// Sets SIGPIPE to ignored for the whole process: libuv writes with `write(2)`,
    /// and a peer that went away would otherwise kill the process silently.
    public static func start(configuration: ConditionerConfiguration, sink: any EventSink) throws -> LinkConditioner {
        let booting = try boot(configuration: configuration, sink: sink)
        return try booting.finish(booting.boot.waitUntilReady())
    }

    /// Starts the loop thread, binds the listeners and begins playing the profile; the
    /// wait for the listeners holds no thread of Swift's cooperative pool.
    /// - Throws: `LibUVError` when a listener cannot be bound (address in use, not local).
    public static func start(configuration: ConditionerConfiguration, sink: any EventSink) async throws -> LinkConditioner {
        let booting = try boot(configuration: configuration, sink: sink)
        return try booting.finish(await booting.boot.ready())
    }

    /// A loop thread that was spawned and is binding its listeners.
    private struct Booting: @unchecked Sendable {
        // @unchecked: `thread` is a pointer type on Darwin; it is only joined or kept.
        let boot: LoopBoot
        let thread: pthread_t
        let paths: AsyncStream<NetworkPath>
        let channel: CommandChannel

        /// The conditioner, once the loop thread said how its listeners fared.
        func finish(_ outcome: LoopBoot.Outcome) throws -> LinkConditioner {
            switch outcome {
            case .failure(let error):
                pthread_join(thread, nil)
                throw error
            case .success(let (endpoints, epoch)):
                return LinkConditioner(endpoints: endpoints, epoch: epoch, thread: thread, channel: channel, paths: paths,
                                       threadName: boot.threadName)
            }
        }
    }

    /// Spawns the loop thread.
    private static func boot(configuration: ConditionerConfiguration, sink: any EventSink) throws -> Booting {
        signal(SIGPIPE, SIG_IGN)
        let (paths, pathContinuation) = AsyncStream<NetworkPath>.makeStream(bufferingPolicy: .unbounded)
        let channel = CommandChannel()
        let boot = LoopBoot(configuration: configuration, sink: sink, paths: pathContinuation, channel: channel)
        var thread = pthread_t()
        let context = Unmanaged.passRetained(boot).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            Unmanaged<LoopBoot>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<LoopBoot>.fromOpaque(context).release()
            throw LibUVError(operation: "pthread_create", code: rc)
        }
        return Booting(boot: boot, thread: thread, paths: paths, channel: channel)
    }

    /// Applies a phase now (links, states, path), as the timeline would: under the
    /// overlay rule, like a phase of the profile.
    public func apply(_ phase: Phase) { send(.applyPhase(phase)) }

    /// Pauses, resumes or moves the profile's timeline (a conditioner started with
    /// `playTimeline`; otherwise nothing happens). Reported as `timelineControlled`; the
    /// snapshot's `timeline` says where it is.
    public func controlTimeline(_ control: TimelineControl) { send(.controlTimeline(control)) }

    /// Takes an interface up or down: a step of the driver (a scenario's own network
    /// step), overlaid on the profile's timeline by `ProfileOverlay`'s rule: down wins
    /// and holds the interface down against the profile's state changes until a later
    /// `setState(.up)`, which lifts the hold and brings it up (until the profile's next
    /// state change for it). `pathUpdate` overrides the profile's policy for this change.
    public func setState(_ interface: InterfaceKind, _ state: InterfaceState, pathUpdate: PathUpdatePolicy? = nil) {
        send(.setState(interface, state, pathUpdate))
    }

    /// Replaces an interface's link; open connections feel it at once.
    public func setLink(_ interface: InterfaceKind, _ link: InterfaceLink) { send(.setLink(interface, link)) }

    /// Ends every connection open on `interface` now (RST or FIN both sides) while it
    /// stays up; the event log says why (`ConnectionCut.reason`).
    public func cutConnections(_ interface: InterfaceKind, _ cut: ConnectionCut) { send(.cutConnections(interface, cut)) }

    /// Counters, per-connection stats and paths, taken consistently on the loop thread.
    public func snapshot() async -> ConditionerSnapshot {
        await withCheckedContinuation { continuation in
            if !send(.snapshot(continuation)) {
                continuation.resume(returning: ConditionerSnapshot(interfaces: [], connections: [],
                                                                   path: NetworkPath(interfaces: []),
                                                                   publishedPath: NetworkPath(interfaces: [])))
            }
        }
    }

    /// Stops forwarding, closes every handle and the loop, and joins the thread.
    /// Returns what `uv_loop_close` returned (0 when no handle leaked). Idempotent.
    @discardableResult
    public func stop() -> Int32 {
        let first = stopped.withLock { wasStopped in
            defer { wasStopped = true }
            return !wasStopped
        }
        if first {
            send(.stop)
            pthread_join(thread, nil)
        }
        return channel.loopCloseResult.withLock { $0 } ?? 0
    }

    /// `stop()` from async code: the join waits on a thread outside the cooperative pool.
    @discardableResult
    public func stop() async -> Int32 {
        await OffPool.run { self.stop() }
    }

    @discardableResult
    private func send(_ command: ConditionerCommand) -> Bool { channel.send(command) }
}
