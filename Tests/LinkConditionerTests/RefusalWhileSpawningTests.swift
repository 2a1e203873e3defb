import BenchCore
import Foundation
import Synchronization
import TestSupport
import Testing
@testable import LinkConditioner
#if canImport(Glibc)
import Glibc
#endif

/// A down interface refuses new connections even while the process spawns children. The bench
/// spawns engines and tools beside its conditioner, and a child holds a copy of every descriptor,
/// the listening socket among them, from its spawn until it execs: closing the conditioner's copy
/// alone left the socket listening in the child, so a connect succeeded on a down interface and
/// the port could not be bound again (seen in a loaded test run; about one cycle in 300 here).
///
/// The spawning is CPU work beside the whole test run: the test runs at low priority on a
/// thread of its own (`.cpuHeavy`, its spawners inherit the nice value) and stops after
/// `cycles` or `budget`, whichever comes first (a fresh clone's loaded run once took 135 s
/// for the cycles an idle machine plays in 0.5 s). It needs `minimumCycles`.
@Suite(.serialized, .timeLimit(.minutes(2)), .cpuHeavy)
struct RefusalWhileSpawningTests {
    static let cycles = 1_500
    static let minimumCycles = 100
    static let budget = Duration.seconds(8)

    @Test func aDownInterfaceRefusesWhileChildrenAreBeingSpawned() async throws {
        let f = try await ConditionerFixture(behaviour: .stream(bytes: 16))
        defer { f.stopSoon() }
        let spawner = ChildSpawner(threads: 2)
        defer { spawner.stop() }
        var accepted = 0
        var otherErrors: [Int32] = []
        var played = 0
        let started = ContinuousClock.now
        while played < Self.cycles, played < Self.minimumCycles || ContinuousClock.now - started < Self.budget {
            played += 1
            f.conditioner.setState(.wifi, .down(.reset))
            _ = await f.conditioner.snapshot()  // the command has been handled once this returns
            switch BlockingSocket.connect(to: f.endpoint(.wifi)) {
            case .connected: accepted += 1
            case .failed(let error): if error != ECONNREFUSED { otherErrors.append(error) }
            }
            f.conditioner.setState(.wifi, .up)
            _ = await f.conditioner.snapshot()
        }
        let spawned = spawner.stop()
        #expect(spawned >= 20, "children were spawned throughout the \(played) cycles (\(spawned))")
        #expect(accepted == 0, "connections accepted on a down interface in \(played) cycles")
        #expect(otherErrors.isEmpty, "refusals other than ECONNREFUSED: \(otherErrors.prefix(5))")
        #expect(!f.kinds().contains { if case .listenerFailed = $0 { true } else { false } })
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        #expect(await client.readAll().bytes == pattern(16))
    }
}

/// Threads that spawn `/bin/true` and reap it, over and over, until stopped.
private final class ChildSpawner: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let count = Atomic<Int>(0)
    private let finished = Atomic<Int>(0)
    private let threads: Int

    init(threads: Int) {
        self.threads = threads
        for _ in 0..<threads {
            Thread.detachNewThread { [self] in
                while !stopping.load(ordering: .relaxed) {
                    if Self.spawnTrue() { count.add(1, ordering: .relaxed) }
                }
                finished.add(1, ordering: .releasing)
            }
        }
    }

    /// Stops the threads, waits for them, and returns how many children were spawned.
    @discardableResult
    func stop() -> Int {
        stopping.store(true, ordering: .relaxed)
        while finished.load(ordering: .acquiring) < threads { sched_yield() }
        return count.load(ordering: .relaxed)
    }

    private static func spawnTrue() -> Bool {
        var pid: pid_t = 0
        let path = strdup("/bin/true")
        defer { free(path) }
        var argv: [UnsafeMutablePointer<CChar>?] = [path, nil]
        guard posix_spawn(&pid, "/bin/true", nil, nil, &argv, environ) == 0 else { return false }
        var status: Int32 = 0
        // blocking-ok: called only on the spawner's own threads (Thread.detachNewThread in init)
        _ = waitpid(pid, &status, 0)
        return true
    }
}
