import BenchCore
import Foundation
import Testing
@testable import LinkConditioner
#if canImport(Glibc)
import Glibc
#endif

/// A down interface refuses new connections even while another process holds a copy of
/// the listening socket. The bench spawns engines and tools beside its conditioner, and a
/// child holds a copy of every descriptor from its spawn until it execs: closing the
/// conditioner's copy alone left the socket listening in the child, so a connect succeeded
/// on a down interface and the port could not be bound again (seen in a loaded test run).
/// The child here is made on purpose, once: a fork that holds every descriptor and waits to
/// be killed (it calls nothing but `pause`), in place of the spawn that happens to be under
/// way. (An earlier version spawned children on two threads for the whole test: a storm of
/// processes that took CPU from the rest of the run.)
@Suite(.serialized, .timeLimit(.minutes(2)))
struct RefusalWhileSpawningTests {
    @Test func aDownInterfaceRefusesWhileAChildHoldsTheListeningSocket() async throws {
        let f = try await ConditionerFixture(behaviour: .stream(bytes: 16))
        defer { f.stopSoon() }
        let child = fork()
        if child == 0 {
            while true { pause() }  // the child: holds every descriptor until SIGKILL
        }
        try #require(child > 0, "fork failed: errno \(errno)")
        defer {
            kill(child, SIGKILL)
            var status: Int32 = 0
            // blocking-ok: the child was just sent SIGKILL, so the reap returns at once
            _ = waitpid(child, &status, 0)
        }
        f.conditioner.setState(.wifi, .down(.reset))
        _ = await f.conditioner.snapshot()  // the command has been handled once this returns
        guard case .failed(let error) = BlockingSocket.connect(to: f.endpoint(.wifi)) else {
            Issue.record("a connect succeeded on a down interface: the child's copy of the socket still listens")
            return
        }
        #expect(error == ECONNREFUSED)
        f.conditioner.setState(.wifi, .up)
        _ = await f.conditioner.snapshot()
        #expect(!f.kinds().contains { if case .listenerFailed = $0 { true } else { false } }, "\(f.kinds())")
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        #expect(await client.readAll().bytes == pattern(16))
    }
}
