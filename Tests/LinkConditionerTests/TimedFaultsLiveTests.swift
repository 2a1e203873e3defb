import BenchCore
import Foundation
import Testing
import TestSupport
@testable import LinkConditioner
#if canImport(Glibc)
import Glibc
#endif

/// The faults that keep time, through a real conditioner on loopback: reset and close
/// after a time open (from the start and arriving live), and slow close. Each timed
/// bound is one that must hold (at least the setting) and a generous one above it.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct TimedFaultsLiveTests {
    /// Addresses of this suite alone.
    static let listeners: [InterfaceKind: SocketAddress] = [
        .wifi: SocketAddress(host: "127.0.0.81", port: 0), .cellular: SocketAddress(host: "127.0.0.82", port: 0),
    ]

    static func faulted(_ faults: ConnectionFaults) -> InterfaceSetup { .shaped(downlink: .transparent, faults: faults) }

    static func resets(_ events: [ConditionerEvent], reason: String) -> Int {
        events.filter { if case .connectionReset(_, _, reason) = $0.kind { true } else { false } }.count
    }

    @Test func resetAfterTimeResetsAConnectionAboutThatLongAfterItOpened() async throws {
        let f = try await ConditionerFixture(behaviour: .echo, wifi: Self.faulted(ConnectionFaults(resetAfterTime: .seconds(1))),
                                             listeners: Self.listeners)
        defer { f.stopSoon() }
        let start = ContinuousClock.now
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        #expect(client.write(Array("hello".utf8)))
        #expect(await client.read(timeout: .seconds(60)) == .data(Array("hello".utf8)), "bytes flow until the reset")
        let end = await client.read(timeout: .seconds(60))
        let elapsed = ContinuousClock.now - start
        #expect(end == .error(errno: ECONNRESET))
        #expect(elapsed >= .seconds(1), "reset after \(elapsed)")
        #expect(elapsed < .seconds(60), "reset after \(elapsed)")
        #expect(await f.events.wait { Self.resets($0, reason: "reset after being open for 1s") == 1 })
    }

    @Test func aResetAfterTimeOfZeroResetsTheConnectionBeforeAnythingIsForwarded() async throws {
        let f = try await ConditionerFixture(behaviour: .stream(bytes: 10_000),
                                             wifi: Self.faulted(ConnectionFaults(resetAfterTime: .zero)),
                                             listeners: Self.listeners)
        defer { f.stopSoon() }
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        #expect(await client.read(timeout: .seconds(60)) == .error(errno: ECONNRESET))
        #expect(await f.events.wait { Self.resets($0, reason: "reset after being open for 0s") == 1 })
        // Reset at the accept: the upstream was never even connected to.
        let accepted = f.upstream.accepted.withLock { $0 }
        #expect(accepted == 0)
        #expect(!f.kinds().contains { if case .upstreamConnected = $0 { true } else { false } })
    }

    @Test func aResetAfterTimeArrivingLiveResetsAnOlderConnectionAtOnceAndANewOneAtItsAge() async throws {
        let f = try await ConditionerFixture(behaviour: .echo, listeners: Self.listeners)
        defer { f.stopSoon() }
        let old = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        #expect(old.write(Array("ping".utf8)))
        #expect(await old.read(timeout: .seconds(60)) == .data(Array("ping".utf8)))
        // Wait until the connection is older than the setting about to arrive.
        guard await eventually("the connection 800 ms old", within: 30, until: {
            (await f.conditioner.snapshot().connections.first?.stats.ageMilliseconds ?? 0) >= 800
        }) else { return }
        let sent = ContinuousClock.now
        f.conditioner.setLink(.wifi, InterfaceLink(faults: ConnectionFaults(resetAfterTime: .milliseconds(500))))
        #expect(await old.read(timeout: .seconds(60)) == .error(errno: ECONNRESET))
        #expect(ContinuousClock.now - sent < .seconds(3), "the old connection was reset only \(ContinuousClock.now - sent) later")
        // A connection opened now is reset at its own age.
        let start = ContinuousClock.now
        let young = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        #expect(await young.read(timeout: .seconds(60)) == .error(errno: ECONNRESET))
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(500) && elapsed < .seconds(60), "the new connection was reset after \(elapsed)")
    }

    @Test func closeAfterTimeWithDiscardsEndsWithEOFAndNothingDelivered() async throws {
        // toxiproxy's timeout toxic: nothing gets through, then the connection closes.
        let setup = InterfaceSetup.shaped(downlink: LinkDirectionParameters(discards: true),
                                          faults: ConnectionFaults(closeAfterTime: .seconds(2)))
        let f = try await ConditionerFixture(behaviour: .echo, wifi: setup, listeners: Self.listeners)
        defer { f.stopSoon() }
        let start = ContinuousClock.now
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        #expect(client.write(Array("hello".utf8)))
        let end = await client.read(timeout: .seconds(60))
        let elapsed = ContinuousClock.now - start
        #expect(end == .eof, "the echo was discarded, then FIN")
        #expect(elapsed >= .seconds(2) && elapsed < .seconds(60), "closed after \(elapsed)")
        let counters = await f.conditioner.snapshot().interface(.wifi)?.counters
        #expect(counters?.bytesDiscardedDownlink == 5)
        #expect(counters?.bytesDownlink == 0 && counters?.bytesUplink == 5)
        #expect(f.kinds().contains {
            if case .connectionClosed(_, .wifi, "close after being open for 2s", _) = $0 { true } else { false }
        })
    }

    @Test func closeDelayPassesTheUpstreamsCloseOnlyThatMuchLater() async throws {
        let f = try await ConditionerFixture(behaviour: .stream(bytes: 1000),
                                             wifi: Self.faulted(ConnectionFaults(closeDelay: .milliseconds(800))),
                                             listeners: Self.listeners)
        defer { f.stopSoon() }
        let start = ContinuousClock.now
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        let (bytes, end) = await client.readAll(idle: .seconds(10))
        let elapsed = ContinuousClock.now - start
        #expect(bytes == pattern(1000), "the body still flows")
        #expect(end == .eof)
        #expect(elapsed >= .milliseconds(800) && elapsed < .seconds(8), "EOF after \(elapsed)")
    }

    @Test func closeDelayHoldsEitherSidesEndWhileTheOtherWayStillFlows() async throws {
        // The client half-closes: its end reaches the echo server 800 ms later, the
        // server's answering close reaches the client 800 ms after that; the echo of what
        // the client sent is delivered meanwhile.
        let f = try await ConditionerFixture(behaviour: .echo,
                                             wifi: Self.faulted(ConnectionFaults(closeDelay: .milliseconds(800))),
                                             listeners: Self.listeners)
        defer { f.stopSoon() }
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        #expect(client.write(Array("abc".utf8)))
        let halfClosed = ContinuousClock.now
        client.shutdownWrite()
        #expect(await client.read(timeout: .seconds(60)) == .data(Array("abc".utf8)))
        #expect(await client.read(timeout: .seconds(15)) == .eof)
        let elapsed = ContinuousClock.now - halfClosed
        #expect(elapsed >= .milliseconds(1600) && elapsed < .seconds(12), "EOF \(elapsed) after the half-close")
    }
}
