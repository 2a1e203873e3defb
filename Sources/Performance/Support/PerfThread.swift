import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A dedicated POSIX thread that runs a closure and hands its result to `join`.
///
/// Sendable: the thread id is immutable and the result travels through a `Mutex`.
final class PerfThread<T: Sendable>: Sendable {
    private let thread: pthread_t
    private let slot: PerfResultSlot<T>

    private init(thread: pthread_t, slot: PerfResultSlot<T>) {
        self.thread = thread
        self.slot = slot
    }

    /// Starts `body` on a new thread named `name` (at most 15 bytes shown by ps/perf).
    /// The thread inherits the caller's CPU affinity.
    static func start(name: String, _ body: @escaping @Sendable () -> T) throws -> PerfThread<T> {
        let slot = PerfResultSlot<T>()
        let entry = PerfThreadEntry {
            PerfThreadName.setCurrent(name)
            let result = body()
            slot.value.withLock { $0 = result }
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(entry).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            Unmanaged<PerfThreadEntry>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<PerfThreadEntry>.fromOpaque(context).release()
            throw PerfError.system("pthread_create", rc)
        }
        return PerfThread(thread: thread, slot: slot)
    }

    /// Waits for the thread to finish and returns what it returned. Call once.
    func join() -> T {
        pthread_join(thread, nil)
        return slot.value.withLock { $0! }
    }
}

final class PerfResultSlot<T: Sendable>: Sendable {
    let value = Mutex<T?>(nil)
}

/// Not generic, so a C thread entry point can call it.
private final class PerfThreadEntry {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

/// Runs `body` on a new thread named `name` and waits for it; errors thrown there are rethrown here.
func perfOnThread<T: Sendable>(name: String, _ body: @escaping @Sendable () throws -> T) throws -> T {
    let thread = try PerfThread<Result<T, PerfError>>.start(name: name) {
        do { return .success(try body()) } catch let error as PerfError {
            return .failure(error)
        } catch {
            return .failure(PerfError("\(error)"))
        }
    }
    return try thread.join().get()
}

/// Runs `body` on a new thread named `name` and resumes when it returns, so that a body that
/// blocks (sleeps, joins, blocking sockets) never holds a thread of Swift's cooperative pool.
/// Throws only when the thread cannot be created.
func perfOnDedicatedThread<T: Sendable>(name: String, _ body: @escaping @Sendable () -> T) async throws -> T {
    let (results, continuation) = AsyncStream<T>.makeStream()
    let thread = try PerfThread<Void>.start(name: name) {
        continuation.yield(body())
        continuation.finish()
    }
    var result: T?
    for await value in results { result = value }
    thread.join()
    guard let result else { throw PerfError("the \(name) thread ended without a result") }
    return result
}

/// Thread names (pthread_setname_np, found with dlsym like `sched_setaffinity`).
/// A thread created afterwards (e.g. the conditioner's loop thread) inherits the name.
enum PerfThreadName {
    private typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32

    static func setCurrent(_ name: String) {
        guard let symbol = dlsym(nil, "pthread_setname_np") else { return }
        _ = unsafeBitCast(symbol, to: SetName.self)(pthread_self(), String(name.utf8.prefix(15))!)
    }
}

