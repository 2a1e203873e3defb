import BenchCore
import Testing
@testable import LinkConditioner
#if canImport(Glibc)
import Glibc
#endif

/// An app killed while a response is on its way: its socket is gone (closed with bytes
/// unread, so it answers RST), and the connection must end then. It once stayed open,
/// writes into the dead socket failing unseen, for as long as the upstream had bytes:
/// a killed app's connection alive in the trace, its bytes counted delivered.
@Suite(.timeLimit(.minutes(2))) struct DeadClientTests {
    @Test func aConnectionEndsWhenTheAppsSocketIsGone() async throws {
        let slow = LinkDirectionParameters(rate: .constant(bitsPerSecond: 2_000_000))
        let f = try await ConditionerFixture(behaviour: .endless(limit: 1 << 30), wifi: .shaped(downlink: slow))
        defer { f.stopSoon() }
        var client: BlockingSocket? = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        guard case .data? = await client?.read(timeout: .seconds(10)) else { Issue.record("no data before the kill"); return }
        client = nil  // closed with bytes unread: the kernel answers the next segment with RST, as for a killed app
        _ = client
        #expect(await f.events.wait(timeout: .seconds(60)) { events in
            events.contains {
                if case .connectionClosed(_, .wifi, let reason, _) = $0.kind { reason.contains("client") } else { false }
            }
        }, "the connection ends once the app's socket is gone: \(f.kinds().suffix(5))")
    }
}
