import BenchCore
import CLibUV
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The queue between other threads and the loop. Sendable by construction: all state is in `Mutex`es.
final class CommandChannel: Sendable {
    private let commands = Mutex<[ConditionerCommand]>([])
    /// The loop's async handle while it accepts commands; nil before start and after stop.
    private let wakeup = Mutex<AsyncHandlePointer?>(nil)
    /// What `uv_loop_close` returned, once the loop thread is done.
    let loopCloseResult = Mutex<Int32?>(nil)

    /// Queues a command and wakes the loop; false once the loop no longer listens.
    func send(_ command: ConditionerCommand) -> Bool {
        wakeup.withLock { async in
            guard let async else { return false }
            commands.withLock { $0.append(command) }
            uv_async_send(async.pointer)
            return true
        }
    }

    func open(_ async: UnsafeMutablePointer<uv_async_t>) { wakeup.withLock { $0 = AsyncHandlePointer(pointer: async) } }

    /// After this, `send` fails and never touches the async handle again.
    func close() { wakeup.withLock { $0 = nil } }

    func drain() -> [ConditionerCommand] {
        commands.withLock { queue in
            defer { queue.removeAll() }
            return queue
        }
    }
}

/// The loop's `uv_async_t`, handed to other threads for `uv_async_send` only.
/// @unchecked Sendable: libuv documents `uv_async_send` as the one thread-safe call,
/// and `CommandChannel` uses the pointer only under its lock, which the loop thread
/// takes to clear it before closing the handle.
struct AsyncHandlePointer: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<uv_async_t>
}

/// Runs on the loop thread from start to finish: sets the loop up, reports
/// readiness, runs it, then closes every handle and the loop.
final class LoopBoot: @unchecked Sendable {
    // @unchecked: `configuration`, `sink`, `paths`, `channel` are Sendable and
    // immutable; `outcome` is behind a Mutex and `ready` is a DispatchSemaphore; nothing
    // else is shared between the starting thread and the loop thread.
    typealias Outcome = Result<([InterfaceKind: SocketAddress], UInt64), LibUVError>

    private let configuration: ConditionerConfiguration
    private let sink: any EventSink
    private let paths: AsyncStream<NetworkPath>.Continuation
    private let channel: CommandChannel
    private let outcome = Mutex<Outcome?>(nil)
    private let ready = DispatchSemaphore(value: 0)
    /// The loop thread's name as the OS shows it (`dz-uv-N`, at most 15 bytes).
    let threadName = "dz-uv-\(LoopBoot.counter.add(1, ordering: .relaxed).newValue % 100_000_000)"
    private static let counter = Atomic<Int>(0)

    init(configuration: ConditionerConfiguration, sink: any EventSink,
         paths: AsyncStream<NetworkPath>.Continuation, channel: CommandChannel) {
        self.configuration = configuration
        self.sink = sink
        self.paths = paths
        self.channel = channel
    }

    /// Called by the starting thread; blocks until the listeners are bound or failed.
    func waitUntilReady() -> Outcome {
        ready.wait()
        return outcome.withLock { $0! }
    }

    /// Suspends until the listeners are bound or failed; the wait for the loop thread's
    /// signal holds a thread outside the cooperative pool (`OffPool`), never a pool thread.
    func ready() async -> Outcome {
        await OffPool.run { self.waitUntilReady() }
    }

    /// Closes every handle of `loop` that is not closing already.
    static func closeEverything(_ loop: UnsafeMutablePointer<uv_loop_t>) {
        uv_walk(loop, { handle, _ in
            if uv_is_closing(handle) == 0 { UVHandle.owner(of: handle)?.close() }
        }, nil)
    }

    func run() {
        deadzone_name_thread(threadName)
        let loop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
        uv_loop_init(loop)
        let paths = self.paths
        let core = ConditionerCore(loop: loop, configuration: configuration, sink: sink) { paths.yield($0) }
        var async: UVAsync?
        do {
            let endpoints = try core.start()
            let channel = self.channel
            async = UVAsync(loop: loop) {
                for command in channel.drain() { core.handle(command) }
                if core.isStopping {
                    channel.close()
                    async?.close()
                    async = nil
                    // Whatever the core's own closing left open (a shutdown that never
                    // completes) is closed now: stopping must end the loop.
                    LoopBoot.closeEverything(loop)
                }
            }
            channel.open(async!.async)
            outcome.withLock { $0 = .success((endpoints, core.epoch)) }
        } catch {
            core.stop()
            outcome.withLock { $0 = .failure(error) }
        }
        ready.signal()

        uv_run(loop, UV_RUN_DEFAULT)
        // Anything still open (there should be nothing) is closed, then the loop.
        LoopBoot.closeEverything(loop)
        uv_run(loop, UV_RUN_DEFAULT)
        let rc = uv_loop_close(loop)
        loop.deallocate()
        paths.finish()
        channel.loopCloseResult.withLock { $0 = rc }
    }
}
