#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A source of monotonic time in nanoseconds, injected wherever time matters.
///
/// Readings from `MonotonicClock` share one epoch across processes on a host
/// (CLOCK_MONOTONIC, the same clock libuv's `uv_hrtime` reads), so traces of
/// several processes can be merged.
public protocol TraceClock: Sendable {
    /// Nanoseconds since the clock's epoch; never decreases.
    var nowNanoseconds: UInt64 { get }
}

/// The host's monotonic clock.
public struct MonotonicClock: TraceClock {
    public init() {}

    public var nowNanoseconds: UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

/// A clock that only moves when told to: for tests of time-dependent logic.
public final class ManualClock: TraceClock {
    private let now: Mutex<UInt64>

    public init(startingAt nanoseconds: UInt64 = 0) {
        now = Mutex(nanoseconds)
    }

    public var nowNanoseconds: UInt64 { now.withLock { $0 } }

    /// Moves the clock forward.
    public func advance(by duration: Duration) {
        now.withLock { $0 += duration.nanoseconds }
    }

    /// Moves the clock to an absolute reading; never backwards.
    public func set(_ nanoseconds: UInt64) {
        now.withLock { $0 = max($0, nanoseconds) }
    }
}
