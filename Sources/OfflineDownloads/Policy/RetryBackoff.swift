import BenchCore

/// When to retry a failed transfer, and when to give up: exponential backoff with
/// jitter, in the manner of Media3 (the count resets when bytes flow).
///
/// A pure value owned by the download's driver, one per download. On each failure
/// the driver calls `failed(_:now:)` and either arms a timer for `.retry(at:)` or
/// reports `permanentFailure(.retriesExhausted)` on `.giveUp`; whenever bytes arrive
/// it calls `bytesFlowed()`. Time is passed in (nanoseconds of a `TraceClock`) and
/// randomness comes from the injected `SeededGenerator`, so a seed replays exactly.
///
/// Network failures (no route, reset, stall) are retried without limit: a download
/// suspends on the network, it never fails on it. Other transient failures (HTTP 5xx,
/// a truncated body) give up after `maximumAttempts` in a row.
public struct RetryBackoff: Sendable {
    /// How delays are randomized (see "Exponential Backoff And Jitter", AWS, 2015).
    public enum Jitter: String, Sendable, Hashable, Codable {
        /// Uniform in [0, min(cap, base·2ⁿ⁻¹)] for the n-th failure in a row.
        case full
        /// Uniform in [base, 3·previous delay], capped: grows like the exponential but
        /// each delay depends on the last one, which spreads clients further apart.
        case decorrelated
    }

    /// Settings; the defaults suit segment downloads on a phone.
    public struct Configuration: Sendable, Hashable {
        /// The first delay's scale. Default 0.5 s.
        public var base: Duration
        /// No delay exceeds this. Default 30 s.
        public var cap: Duration
        /// Non-network failures in a row before giving up; nil never gives up. Default 5
        /// (Media3's `minRetryCount`).
        public var maximumAttempts: Int?
        /// How delays are randomized. Default `.full`.
        public var jitter: Jitter

        /// Creates a configuration.
        public init(
            base: Duration = .milliseconds(500), cap: Duration = .seconds(30), maximumAttempts: Int? = 5,
            jitter: Jitter = .full
        ) {
            self.base = base
            self.cap = cap
            self.maximumAttempts = maximumAttempts
            self.jitter = jitter
        }
    }

    /// What kind of failure happened; decides whether attempts are bounded.
    public enum FailureKind: String, Sendable, Hashable, Codable {
        /// The network let the transfer down (reset, refused, timed out, stalled): never gives up.
        case network
        /// Any other transient failure (HTTP 5xx, truncated body): bounded by `maximumAttempts`.
        case other
    }

    /// The answer to a failure.
    public enum Decision: Sendable, Hashable {
        /// Try again at `at` (ns of the same clock as `now`), `after` from now.
        case retry(after: Duration, at: UInt64)
        /// Stop: `attempts` non-network failures in a row reached the maximum.
        case giveUp(attempts: Int)
    }

    /// The settings.
    public let configuration: Configuration
    private var generator: SeededGenerator
    /// Failures of any kind since bytes last flowed: the exponent of the delay.
    public private(set) var consecutiveFailures = 0
    /// Non-network failures since bytes last flowed: compared with `maximumAttempts`.
    public private(set) var boundedFailures = 0
    /// The last delay, in nanoseconds (decorrelated jitter grows from it).
    private var previousDelay: UInt64 = 0

    /// A backoff with `configuration`, drawing from `generator` (e.g. the run's
    /// generator `derived("retry.<token>")`).
    public init(configuration: Configuration = Configuration(), generator: SeededGenerator) {
        self.configuration = configuration
        self.generator = generator
    }

    /// A failure of `kind` happened at `now`: when to retry, or to give up.
    public mutating func failed(_ kind: FailureKind, now: UInt64) -> Decision {
        consecutiveFailures += 1
        if kind == .other {
            boundedFailures += 1
            if let maximum = configuration.maximumAttempts, boundedFailures >= maximum {
                return .giveUp(attempts: boundedFailures)
            }
        }
        let delay = nextDelay()
        previousDelay = delay
        let (at, overflow) = now.addingReportingOverflow(delay)
        return .retry(after: .nanos(delay), at: overflow ? .max : at)
    }

    /// Bytes arrived: the transfer works again, so the next failure starts from the
    /// first delay and the attempt count starts over.
    public mutating func bytesFlowed() {
        consecutiveFailures = 0
        boundedFailures = 0
        previousDelay = 0
    }

    /// The delay for the current `consecutiveFailures`, in nanoseconds.
    private mutating func nextDelay() -> UInt64 {
        let base = Double(configuration.base.nanoseconds)
        let cap = Double(configuration.cap.nanoseconds)
        let delay: Double
        switch configuration.jitter {
        case .full:
            // base·2ⁿ⁻¹ overflows Double only past n ≈ 1000; min() handles infinity.
            let ceiling = min(cap, base * pow2(consecutiveFailures - 1))
            delay = generator.unit() * ceiling
        case .decorrelated:
            let low = min(base, cap)
            let high = max(low, min(cap, 3 * Double(max(previousDelay, configuration.base.nanoseconds))))
            delay = low + generator.unit() * (high - low)
        }
        return UInt64(min(delay, cap).rounded(.down))
    }

    private func pow2(_ exponent: Int) -> Double {
        exponent >= 1024 ? .infinity : Double(sign: .plus, exponent: exponent, significand: 1)
    }
}
