import BenchCore
import Testing

/// Runs a test, or each test of a suite, on a thread of its own at a lower scheduling
/// priority (`DedicatedExecutor`, nice 10): for tests that compute at length (seeded
/// workloads, fuzzing, hashing, encoding). On Swift's cooperative pool such a test holds
/// one of its few threads (one per core) until it ends, and every live test's
/// continuation waits behind it; on a thread of its own it yields the CPU to them.
/// `@Suite(.cpuHeavy)` or `@Test(.cpuHeavy)`.
public struct CPUHeavyTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        let executor = DedicatedExecutor(name: "test-cpu-heavy", niceness: 10)
        defer { executor.shutdown() }
        try await executor.run { try await function() }
    }
}

extension Trait where Self == CPUHeavyTrait {
    /// The test computes at length: run it on a low-priority thread of its own (`CPUHeavyTrait`).
    public static var cpuHeavy: Self { CPUHeavyTrait() }
}
