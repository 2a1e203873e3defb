import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Monotonic time for the perf benchmark (CLOCK_MONOTONIC, the clock libuv's `uv_hrtime` reads).
enum PerfClock {
    /// Nanoseconds since an arbitrary fixed instant.
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Sleeps until the absolute monotonic instant `deadline` (retries after signals).
    static func sleep(until deadline: UInt64) {
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        for _ in 0..<1000 {
            let rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil)
            if rc != EINTR { return }
        }
    }

    static func sleep(seconds: Double) {
        sleep(until: now() + UInt64(max(0, seconds) * 1e9))
    }

    static func seconds(_ nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1e9 }
}

/// Errors of the perf benchmark, with a message that says what failed.
struct PerfError: Error, CustomStringConvertible, Sendable {
    var description: String

    init(_ description: String) { self.description = description }

    /// An error from a libc call, naming the call and errno.
    static func system(_ operation: String, _ code: Int32 = errno) -> PerfError {
        PerfError("\(operation): \(String(cString: strerror(code))) (errno \(code))")
    }
}

/// A flag shared between threads (e.g. "stop now").
final class PerfFlag: Sendable {
    private let value = Atomic<Bool>(false)

    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

/// A counter shared between threads.
final class PerfCounter: Sendable {
    private let value = Atomic<Int>(0)

    func add(_ amount: Int) { value.wrappingAdd(amount, ordering: .relaxed) }
    var current: Int { value.load(ordering: .relaxed) }
}

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

/// Thread names (pthread_setname_np, found with dlsym like `sched_setaffinity`).
/// A thread created afterwards (e.g. the conditioner's loop thread) inherits the name.
enum PerfThreadName {
    private typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32

    static func setCurrent(_ name: String) {
        guard let symbol = dlsym(nil, "pthread_setname_np") else { return }
        _ = unsafeBitCast(symbol, to: SetName.self)(pthread_self(), String(name.utf8.prefix(15))!)
    }
}

/// CPU affinity through glibc's `sched_setaffinity` (found with dlsym: Swift's Glibc
/// module is not built with _GNU_SOURCE, so the call is not imported).
enum PerfAffinity {
    private typealias SetAffinity = @convention(c) (pid_t, Int, UnsafeRawPointer?) -> Int32
    private typealias GetCPU = @convention(c) () -> Int32

    /// Pins the calling thread (and every thread it creates afterwards) to `cpu`.
    static func pinCurrentThread(toCPU cpu: Int) throws {
        guard let symbol = dlsym(nil, "sched_setaffinity") else { throw PerfError("sched_setaffinity not found") }
        let setAffinity = unsafeBitCast(symbol, to: SetAffinity.self)
        var set = cpu_set_t()
        withUnsafeMutableBytes(of: &set) { bytes in
            bytes.storeBytes(of: UInt8(1) << UInt8(cpu % 8), toByteOffset: cpu / 8, as: UInt8.self)
        }
        let rc = withUnsafePointer(to: &set) { setAffinity(0, MemoryLayout<cpu_set_t>.size, $0) }
        if rc != 0 { throw PerfError.system("sched_setaffinity(cpu \(cpu))") }
    }

    /// The CPU the calling thread runs on, or -1.
    static func currentCPU() -> Int {
        guard let symbol = dlsym(nil, "sched_getcpu") else { return -1 }
        return Int(unsafeBitCast(symbol, to: GetCPU.self)())
    }

    static var onlineCPUs: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}

enum PerfLimits {
    /// Raises the soft open-file limit to at least `needed` (up to the hard limit).
    /// Children inherit it. Returns the new soft limit.
    @discardableResult
    static func raiseOpenFiles(to needed: Int) throws -> Int {
        var limit = rlimit()
        let resource = Int32(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { throw PerfError.system("getrlimit(RLIMIT_NOFILE)") }
        if limit.rlim_cur >= rlim_t(needed) { return Int(limit.rlim_cur) }
        let wanted = rlim_t(needed) > limit.rlim_max ? limit.rlim_max : rlim_t(needed)
        limit.rlim_cur = wanted
        guard setrlimit(resource, &limit) == 0 else { throw PerfError.system("setrlimit(RLIMIT_NOFILE, \(wanted))") }
        guard wanted >= rlim_t(needed) else {
            throw PerfError("the open-file limit is \(wanted) (hard); \(needed) are needed: raise it with ulimit -Hn")
        }
        return Int(wanted)
    }
}

/// How busy the machine is, to judge whether the figures can be trusted.
enum PerfLoad {
    /// Fraction (0...1) of all CPUs' time that was not idle over `seconds`, and the 1-minute load average.
    static func sample(seconds: Double = 0.5) -> (busy: Double, loadAverage: Double) {
        let first = totals()
        PerfClock.sleep(seconds: seconds)
        let second = totals()
        let total = Double(second.total - first.total), idle = Double(second.idle - first.idle)
        return (total > 0 ? max(0, 1 - idle / total) : 0, loadAverage())
    }

    static func loadAverage() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
              let first = text.split(separator: " ").first else { return 0 }
        return Double(first) ?? 0
    }

    private static func totals() -> (total: UInt64, idle: UInt64) {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return (0, 0) }
        let values = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
        guard values.count >= 5 else { return (0, 0) }
        // user nice system idle iowait irq softirq steal ...
        return (values.prefix(8).reduce(0, +), values[3] + values[4])
    }
}

/// On-CPU and run-queue time of this process's threads, by thread name (from
/// /proc/self/task/*/schedstat, nanoseconds), to see where a measurement's CPU went.
struct PerfThreadTimes {
    /// name → (on CPU, runnable but waiting for a CPU), summed over threads of that name.
    var byName: [String: (running: UInt64, waiting: UInt64)] = [:]

    static func snapshot() -> PerfThreadTimes {
        var result = PerfThreadTimes()
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return result }
        for tid in tasks {
            guard let comm = try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8),
                  let stat = try? String(contentsOfFile: "/proc/self/task/\(tid)/schedstat", encoding: .utf8) else { continue }
            let fields = stat.split(separator: " ").compactMap { UInt64($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            guard fields.count >= 2 else { continue }
            let name = comm.trimmingCharacters(in: .whitespacesAndNewlines)
            let old = result.byName[name] ?? (0, 0)
            result.byName[name] = (old.running + fields[0], old.waiting + fields[1])
        }
        return result
    }

    /// Time used since `earlier` by threads whose name starts with `prefix` (threads that
    /// started in between count from zero; threads that ended are lost).
    func since(_ earlier: PerfThreadTimes, prefix: String) -> (running: Double, waiting: Double) {
        var running = 0.0, waiting = 0.0
        for (name, now) in byName where name.hasPrefix(prefix) {
            let before = earlier.byName[name] ?? (0, 0)
            running += Double(now.running &- before.running) / 1e9
            waiting += Double(now.waiting &- before.waiting) / 1e9
        }
        return (running, waiting)
    }
}
