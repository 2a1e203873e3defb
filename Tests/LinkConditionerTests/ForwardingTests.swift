import BenchCore
import Foundation
import Testing
@testable import LinkConditioner
#if canImport(Glibc)
import Glibc
#endif

/// Bytes through real sockets: integrity, shaping, faults. Bounds are generous:
/// these tests say what happened, the perf command says how precisely.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ForwardingTests {
    @Test func transparentLinkForwardsEveryByteInOrderBothWays() async throws {
        let f = try await ConditionerFixture(behaviour: .echo)
        defer { f.stopSoon() }
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        let sent = pattern(2_000_000)
        let reader = Task { await client.readAll(limit: sent.count) }
        #expect(client.write(sent))
        let (echoed, _) = await reader.value
        #expect(echoed == sent)
        let snapshot = await f.conditioner.snapshot()
        #expect(snapshot.interface(.wifi)?.counters.bytesUplink == sent.count)
        #expect(snapshot.interface(.wifi)?.counters.bytesDownlink == sent.count)
    }

    @Test func startIgnoresSIGPIPESoAVanishedPeerCannotKillTheProcess() async throws {
        // Anything but "ignored" before the start, to see the start change it. Not SIG_DFL:
        // the disposition is the whole process's, and meanwhile a broken pipe in any other
        // test (SwiftNIO writes with write(2), relying on SIGPIPE being ignored) would kill
        // the test run. A handler that does nothing is as harmless as ignoring it.
        signal(SIGPIPE) { _ in }
        let f = try await ConditionerFixture(behaviour: .endless(limit: 1 << 26))
        defer { f.stopSoon() }
        var action = sigaction()
        sigaction(SIGPIPE, nil, &action)
        #expect(unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self))
        // A client that vanishes mid-stream: the conditioner keeps serving others.
        do {
            let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
            _ = await client.read(timeout: .seconds(2))
        }
        let other = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        guard case .data = await other.read(timeout: .seconds(5)) else { Issue.record("conditioner stopped serving"); return }
    }

    @Test func jitterNeverReordersBytes() async throws {
        let link = LinkDirectionParameters(rate: .constant(bitsPerSecond: 20_000_000), delay: .milliseconds(20),
                                           jitter: .milliseconds(15))
        let f = try await ConditionerFixture(behaviour: .stream(bytes: 1_500_000), wifi: .shaped(downlink: link))
        defer { f.stopSoon() }
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        let (bytes, end) = await client.readAll()
        #expect(end == .eof)
        #expect(bytes == pattern(1_500_000))
    }

    @Test func rateIsSharedByAllConnectionsOfAnInterface() async throws {
        // 4 Mbit/s for the interface: two connections together get about that, each about half.
        let f = try await ConditionerFixture(behaviour: .endless(limit: 1 << 30),
                                       wifi: .shaped(downlink: .init(rate: .constant(bitsPerSecond: 4_000_000),
                                                                     queueLimitBytes: 64 * 1024)))
        defer { f.stopSoon() }
        let window = Duration.seconds(3)
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    try await OffPool.run {
                        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
                        let start = ContinuousClock.now
                        var total = 0
                        while ContinuousClock.now - start < window, case .data(let d) = client.read(timeout: .seconds(2)) {
                            total += d.count
                        }
                        return total
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let total = counts.reduce(0, +)
        let expected = 4_000_000 / 8 * 3  // bytes in the window
        // Shared, not per connection: far below 2× the rate, and not starved.
        #expect(total < expected * 3 / 2, "two connections got \(total) bytes, more than the shared rate allows")
        #expect(total > expected / 2, "two connections got only \(total) bytes")
        #expect(counts.min()! * 3 > counts.max()!, "unfair split \(counts)")
    }

    @Test func aLateConnectionGetsItsShareOfABackloggedLink() async throws {
        // Three connections fill the queue first; the fourth joins late. Each sender is
        // paused at its own share of the queue, so the latecomer is not starved.
        let f = try await ConditionerFixture(behaviour: .endless(limit: 1 << 30),
                                       wifi: .shaped(downlink: .init(rate: .constant(bitsPerSecond: 4_000_000),
                                                                     queueLimitBytes: 256 * 1024)))
        defer { f.stopSoon() }
        let early = try (0..<3).map { _ in try BlockingSocket.mustConnect(to: f.endpoint(.wifi)) }
        // The stimulus: the fourth comes late, to a backlogged link, once each early
        // connection has had 64 kB through it (about 0.4 s of the shared 4 Mbit/s).
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in early {
                group.addTask {
                    await OffPool.run {
                        var received = 0
                        while received < 64 * 1024, case .data(let d) = client.read(timeout: .seconds(30)) { received += d.count }
                    }
                }
            }
            try await group.waitForAll()
        }
        let late = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        let clients = early + [late]
        let counts = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for (index, client) in clients.enumerated() {
                group.addTask {
                    await OffPool.run {
                        // The first 1.5 s drain what the early sockets' kernel buffers
                        // already hold; only the shares after that are compared.
                        let start = ContinuousClock.now
                        var total = 0
                        while ContinuousClock.now - start < .milliseconds(4_500), case .data(let d) = client.read(timeout: .seconds(2)) {
                            if ContinuousClock.now - start >= .milliseconds(1_500) { total += d.count }
                        }
                        return (index, total)
                    }
                }
            }
            return try await group.reduce(into: [Int](repeating: 0, count: 4)) { $0[$1.0] = $1.1 }
        }
        let total = counts.reduce(0, +)
        #expect(counts[3] * 8 > total, "the late connection got \(counts[3]) of \(total) bytes: \(counts)")
    }

    @Test func liveRateChangeAppliesToAnOpenConnection() async throws {
        let slow = LinkDirectionParameters(rate: .constant(bitsPerSecond: 200_000), queueLimitBytes: 16 * 1024)
        let f = try await ConditionerFixture(behaviour: .stream(bytes: 4_000_000), wifi: .shaped(downlink: slow))
        defer { f.stopSoon() }
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        // At 200 kbit/s, 4 MB would take 160 s; after the change to unlimited it takes well under 10 s.
        _ = await client.read(timeout: .seconds(2))
        f.conditioner.setLink(.wifi, InterfaceLink())
        let start = ContinuousClock.now
        let (bytes, end) = await client.readAll(idle: .seconds(5))
        #expect(end == .eof)
        #expect(ContinuousClock.now - start < .seconds(30))
        #expect(bytes.count > 3_900_000)
        #expect(f.kinds().contains { if case .linkChanged(.wifi, _) = $0 { true } else { false } })
    }

    @Test func resetAfterBytesCutsTheConnectionAtThatByte() async throws {
        let faults = ConnectionFaults(resetAfterBytes: 100_000)
        let f = try await ConditionerFixture(behaviour: .stream(bytes: 1_000_000),
                                       wifi: .shaped(downlink: .transparent, faults: faults))
        defer { f.stopSoon() }
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        let (bytes, end) = await client.readAll()
        #expect(end == .error(errno: ECONNRESET))
        #expect(bytes.count <= 100_000)
        #expect(bytes == pattern(bytes.count))
    }

    @Test func closeAfterBytesEndsWithFINAfterExactlyThatMany() async throws {
        let faults = ConnectionFaults(closeAfterBytes: 250_000)
        let f = try await ConditionerFixture(behaviour: .stream(bytes: 1_000_000),
                                       wifi: .shaped(downlink: .transparent, faults: faults))
        defer { f.stopSoon() }
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        let (bytes, end) = await client.readAll()
        #expect(end == .eof)
        #expect(bytes == pattern(250_000))
    }

    @Test func slowConnectDelaysTheUpstreamHandOff() async throws {
        let faults = ConnectionFaults(slowConnectExtra: .milliseconds(300))
        let f = try await ConditionerFixture(behaviour: .stream(bytes: 1000),
                                       wifi: .shaped(downlink: .transparent, faults: faults))
        defer { f.stopSoon() }
        let start = ContinuousClock.now
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        let (bytes, _) = await client.readAll()
        #expect(bytes == pattern(1000))
        #expect(ContinuousClock.now - start >= .milliseconds(300))
    }

    @Test func proxyProtocolLineNamesTheInterfaceAddress() async throws {
        let f = try await ConditionerFixture(behaviour: .stream(bytes: 10), proxyProtocol: true)
        defer { f.stopSoon() }
        for kind in InterfaceKind.allCases {
            let client = try BlockingSocket.mustConnect(to: f.endpoint(kind))
            _ = await client.readAll()
        }
        let lines = f.upstream.received.withLock { $0 }.map { String(decoding: $0, as: UTF8.self) }
        #expect(lines.count == 2)
        for kind in InterfaceKind.allCases {
            let listener = f.endpoint(kind)
            #expect(lines.contains { $0.hasPrefix("PROXY TCP4 127.0.0.1 \(listener.host) ") && $0.hasSuffix(" \(listener.port)\r\n") },
                    "no PROXY line for \(kind) in \(lines)")
        }
    }

    @Test func lossHoldsTheStreamButLosesNoBytes() async throws {
        let lossy = LinkDirectionParameters(rate: .constant(bitsPerSecond: 8_000_000), delay: .milliseconds(5),
                                            loss: .bernoulli(probability: 0.02))
        let f = try await ConditionerFixture(behaviour: .stream(bytes: 300_000), wifi: .shaped(downlink: lossy))
        defer { f.stopSoon() }
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        let (bytes, end) = await client.readAll()
        #expect(end == .eof)
        #expect(bytes == pattern(300_000))
        let losses = f.kinds().filter { if case .packetLost(_, .wifi, .downlink, _, _) = $0 { true } else { false } }
        #expect(!losses.isEmpty, "200 MTUs at 2% loss should lose some")
    }
}
