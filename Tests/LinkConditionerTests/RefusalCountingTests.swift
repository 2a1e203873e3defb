import BenchCore
import Testing
@testable import LinkConditioner
#if canImport(Glibc)
import Glibc
#endif

/// `ConditionerConfiguration.countsRefusals`: what a down interface does with a new
/// connection (`Admission`, pure), and on loopback that every refused connect is
/// counted and reported while the client sees a reset right after connecting.
@Suite struct AdmissionTests {
    @Test func theStateAndTheOptionDecideWhatHappensToANewConnection() {
        for counts in [false, true] {
            #expect(Admission(state: .up, countsRefusals: counts) == .forward)
            #expect(Admission(state: .down(.blackhole), countsRefusals: counts) == .hold)
        }
        for mode in [DownMode.reset, .refuse] {
            #expect(Admission(state: .down(mode), countsRefusals: false) == .refuseInKernel)
            #expect(Admission(state: .down(mode), countsRefusals: true) == .acceptAndReset)
        }
        // Only the kernel's refusal stops listening.
        #expect(!Admission.refuseInKernel.listens)
        #expect([Admission.forward, .hold, .acceptAndReset].allSatisfy { $0.listens })
    }
}

@Suite(.serialized, .timeLimit(.minutes(2))) struct RefusalCountingTests {
    /// Addresses of this suite alone (other suites use 127.0.0.2 and .3).
    static let listeners: [InterfaceKind: SocketAddress] = [
        .wifi: SocketAddress(host: "127.0.0.71", port: 0), .cellular: SocketAddress(host: "127.0.0.72", port: 0),
    ]

    static func refusals(_ events: [ConditionerEvent], on kind: InterfaceKind) -> Int {
        events.filter { if case .connectionRefused(kind, _) = $0.kind { true } else { false } }.count
    }

    /// Connects (the handshake completes: the listener is there) and returns how the
    /// connection then ended: the conditioner resets it at once.
    static func connectAndRead(_ address: SocketAddress) throws -> BlockingSocket.ReadOutcome {
        let socket = try BlockingSocket.mustConnect(to: address)
        return socket.read(timeout: .seconds(5))
    }

    @Test func connectsToAResetOrRefuseInterfaceAreCountedAndReset() async throws {
        let f = try await ConditionerFixture(
            behaviour: .stream(bytes: 10_000), cellular: InterfaceSetup(state: .down(.refuse)),
            listeners: Self.listeners, countsRefusals: true)
        defer { f.stopSoon() }
        // Cellular starts down (refuse): its listener listens from the start.
        for _ in 0..<3 {
            let end = try await OffPool.run { try Self.connectAndRead(f.endpoint(.cellular)) }
            #expect(end == .error(errno: ECONNRESET))
        }
        f.conditioner.setState(.wifi, .down(.reset))
        _ = await f.conditioner.snapshot()  // the command has been handled once this returns
        for _ in 0..<5 {
            let end = try await OffPool.run { try Self.connectAndRead(f.endpoint(.wifi)) }
            #expect(end == .error(errno: ECONNRESET))
        }
        #expect(await f.events.wait { Self.refusals($0, on: .wifi) == 5 && Self.refusals($0, on: .cellular) == 3 })
        let snapshot = await f.conditioner.snapshot()
        #expect(snapshot.interface(.wifi)?.counters.connectionsRefused == 5)
        #expect(snapshot.interface(.cellular)?.counters.connectionsRefused == 3)
        #expect(snapshot.interface(.wifi)?.counters.connectionsAccepted == 0)
        #expect(snapshot.connections.isEmpty, "a refused connection is never proxied")
        // The event names the client.
        let peers = f.events.all.compactMap { event -> String? in
            if case .connectionRefused(.wifi, let peer) = event.kind { peer } else { nil }
        }
        #expect(peers.allSatisfy { $0.hasPrefix("127.0.0.1:") }, "\(peers)")
        // No path change: the interfaces stay out of the path while refusing.
        #expect(snapshot.path.interfaces.isEmpty)

        // Up again: the same listener forwards; nothing more is counted as refused.
        f.conditioner.setState(.wifi, .up)
        _ = await f.conditioner.snapshot()
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        let (bytes, end) = await client.readAll()
        #expect(bytes == pattern(10_000))
        #expect(end == .eof)
        let after = await f.conditioner.snapshot()
        #expect(after.interface(.wifi)?.counters.connectionsRefused == 5)
        #expect(after.interface(.wifi)?.counters.connectionsAccepted == 1)
        #expect(await f.stop() == 0, "every handle, the refused ones included, is closed")
    }

    @Test func aBlackholedInterfaceAcceptsAndHoldsRatherThanRefuses() async throws {
        let f = try await ConditionerFixture(behaviour: .stream(bytes: 10_000), listeners: Self.listeners, countsRefusals: true)
        defer { f.stopSoon() }
        f.conditioner.setState(.wifi, .down(.blackhole))
        _ = await f.conditioner.snapshot()
        let held = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        #expect(await held.read(timeout: .milliseconds(300)) == .timedOut)
        #expect(await f.events.wait { $0.contains { if case .connectionAccepted(_, .wifi, _) = $0.kind { true } else { false } } })
        #expect(Self.refusals(f.events.all, on: .wifi) == 0)
    }

    @Test func withoutTheOptionTheKernelRefusesAndNothingIsCounted() async throws {
        let f = try await ConditionerFixture(behaviour: .stream(bytes: 10_000))
        defer { f.stopSoon() }
        f.conditioner.setState(.wifi, .down(.refuse))
        _ = await f.conditioner.snapshot()
        guard case .failed(let error) = BlockingSocket.connect(to: f.endpoint(.wifi)) else {
            Issue.record("connect succeeded on a refusing interface"); return
        }
        #expect(error == ECONNREFUSED)
        let snapshot = await f.conditioner.snapshot()
        #expect(snapshot.interface(.wifi)?.counters.connectionsRefused == 0)
        #expect(Self.refusals(f.events.all, on: .wifi) == 0)
    }
}
