import BenchCore
import OfflineDownloads
import Testing

@Suite("RetryBackoff")
struct RetryBackoffTests {
    typealias Configuration = RetryBackoff.Configuration
    static let second: UInt64 = 1_000_000_000

    /// The delay of a `.retry` decision in seconds; nil for `.giveUp`.
    static func seconds(_ decision: RetryBackoff.Decision) -> Double? {
        if case .retry(let after, _) = decision { return after.seconds }
        return nil
    }

    @Test("full jitter: the n-th delay is uniform in [0, min(30 s, 0.5 s·2ⁿ⁻¹)]")
    func fullJitterGrowsAndCaps() {
        let ceilings = [0.5, 1, 2, 4, 8, 16, 30, 30, 30, 30]
        var samples = Array(repeating: [Double](), count: ceilings.count)
        for seed in 0..<400 {
            var backoff = RetryBackoff(configuration: Configuration(maximumAttempts: nil), generator: SeededGenerator(seed: UInt64(seed)))
            for n in ceilings.indices {
                samples[n].append(Self.seconds(backoff.failed(.other, now: 0)) ?? -1)
            }
        }
        for (n, ceiling) in ceilings.enumerated() {
            let delays = samples[n]
            #expect(delays.allSatisfy { $0 >= 0 && $0 <= ceiling }, "attempt \(n + 1)")
            // The whole range is used: the largest draw is near the ceiling, the mean near half of it.
            #expect(delays.max()! > 0.95 * ceiling, "attempt \(n + 1)")
            let mean = delays.reduce(0, +) / Double(delays.count)
            #expect(abs(mean / (ceiling / 2) - 1) < 0.1, "attempt \(n + 1): mean \(mean)")
        }
    }

    @Test("decorrelated jitter: each delay in [base, min(cap, 3·previous)]")
    func decorrelatedBounds() {
        let configuration = Configuration(base: .milliseconds(500), cap: .seconds(10), maximumAttempts: nil, jitter: .decorrelated)
        var reachedCap = false
        for seed in 0..<100 {
            var backoff = RetryBackoff(configuration: configuration, generator: SeededGenerator(seed: UInt64(seed)))
            var previous = 0.5
            for _ in 0..<30 {
                let delay = Self.seconds(backoff.failed(.network, now: 0)) ?? -1
                #expect(delay >= 0.5 && delay <= min(10, 3 * previous))
                if delay > 9.5 { reachedCap = true }
                previous = delay
            }
        }
        #expect(reachedCap)
    }

    @Test("non-network failures give up after the maximum; the give-up says how many")
    func givesUp() {
        var backoff = RetryBackoff(generator: SeededGenerator(seed: 7))  // defaults: 5 attempts
        for attempt in 1...4 {
            #expect(Self.seconds(backoff.failed(.other, now: 0)) != nil, "attempt \(attempt)")
        }
        #expect(backoff.failed(.other, now: 0) == .giveUp(attempts: 5))
    }

    @Test("network failures never give up, and do not count toward the bound")
    func networkIsUnbounded() {
        var backoff = RetryBackoff(generator: SeededGenerator(seed: 7))
        for _ in 0..<1000 {
            guard let delay = Self.seconds(backoff.failed(.network, now: 0)) else {
                Issue.record("gave up on a network failure")
                return
            }
            #expect(delay <= 30)
        }
        for _ in 1...4 { #expect(Self.seconds(backoff.failed(.other, now: 0)) != nil) }
        #expect(backoff.failed(.other, now: 0) == .giveUp(attempts: 5))
        #expect(backoff.consecutiveFailures == 1005)
    }

    @Test("bytes flowing reset the count and the delay")
    func bytesResetEverything() {
        var backoff = RetryBackoff(configuration: Configuration(maximumAttempts: 3), generator: SeededGenerator(seed: 3))
        for _ in 0..<10 { _ = backoff.failed(.network, now: 0) }
        _ = backoff.failed(.other, now: 0)
        _ = backoff.failed(.other, now: 0)
        backoff.bytesFlowed()
        #expect(backoff.consecutiveFailures == 0)
        #expect(backoff.boundedFailures == 0)
        // Back to the first delay's range, and two more failures are allowed before giving up.
        #expect((Self.seconds(backoff.failed(.other, now: 0)) ?? 99) <= 0.5)
        #expect(Self.seconds(backoff.failed(.other, now: 0)) != nil)
        #expect(backoff.failed(.other, now: 0) == .giveUp(attempts: 3))
    }

    @Test("no maximum: never gives up")
    func unbounded() {
        var backoff = RetryBackoff(configuration: Configuration(maximumAttempts: nil), generator: SeededGenerator(seed: 1))
        for _ in 0..<100 { #expect(Self.seconds(backoff.failed(.other, now: 0)) != nil) }
    }

    @Test("the retry instant is now plus the delay, saturating at the end of time")
    func retryInstant() {
        var backoff = RetryBackoff(generator: SeededGenerator(seed: 11))
        guard case let .retry(after, at) = backoff.failed(.network, now: 42 * Self.second) else {
            Issue.record("no retry")
            return
        }
        #expect(at == 42 * Self.second + after.nanoseconds)
        guard case let .retry(_, late) = backoff.failed(.network, now: .max - 1) else {
            Issue.record("no retry")
            return
        }
        #expect(late == .max)
    }

    @Test("the same seed replays the same delays; another seed does not", arguments: [RetryBackoff.Jitter.full, .decorrelated])
    func determinism(_ jitter: RetryBackoff.Jitter) {
        func delays(seed: UInt64) -> [RetryBackoff.Decision] {
            var backoff = RetryBackoff(configuration: Configuration(maximumAttempts: nil, jitter: jitter), generator: SeededGenerator(seed: seed))
            return (0..<20).map { backoff.failed(.network, now: UInt64($0) * Self.second) }
        }
        #expect(delays(seed: 2024) == delays(seed: 2024))
        #expect(delays(seed: 2024) != delays(seed: 2025))
    }
}
