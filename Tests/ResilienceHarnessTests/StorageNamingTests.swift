import Foundation
import ResilienceHarness
import Testing

/// Two runs of one scenario with one seed at once in one process (two engines of a
/// matrix, two test suites side by side) each get a storage directory of their own: one
/// must never read, or remove, the other's.
@Suite(.timeLimit(.minutes(3))) struct StorageNamingTests {
    @Test func twoRunsOfOneScenarioAndSeedAtOnceGetStoragesOfTheirOwn() async throws {
        let fake = try FakeApp()
        defer { fake.remove() }
        let scenario = ProtocolBreakTests.probe("probe-storage", expectBreak: false)
        async let first = ProtocolBreakTests.run(fake.app("storage"), [scenario])
        async let second = ProtocolBreakTests.run(fake.app("storage"), [scenario])
        let storages = try await [first, second].map { run in
            let result = try #require(run.report.scenarios.first)
            #expect(result.error == nil, "\(result.error ?? "")")
            let tail = try #require(result.stderr?.first?.tail)
            return try #require(tail.split(separator: "\n").first { $0.hasPrefix("storage: ") }).dropFirst(9)
        }
        #expect(storages.allSatisfy { $0.contains("deadzone-probe-storage-\(getpid())-3-") }, "\(storages)")
        #expect(storages[0] != storages[1], "both runs were given \(storages[0])")
    }
}
