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

/// Errors of the benchmarks, with a message that says what failed. A section that fails
/// carries it as its `error`; the benchmarks throw it only when they cannot start.
public struct PerfError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) { self.description = description }

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

