import BenchCore
import Foundation
import Testing
import TestSupport
@testable import LinkConditioner
#if canImport(Glibc)
import Glibc
#endif

/// Discarding and slicing, through a real conditioner on loopback.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct DiscardAndSlicingLiveTests {
    /// Addresses of this suite alone.
    static let listeners: [InterfaceKind: SocketAddress] = [
        .wifi: SocketAddress(host: "127.0.0.83", port: 0), .cellular: SocketAddress(host: "127.0.0.84", port: 0),
    ]

    static func counters(_ f: ConditionerFixture) async -> InterfaceCounters {
        await f.conditioner.snapshot().interface(.wifi)?.counters ?? InterfaceCounters()
    }

    @Test func aDiscardingDownlinkDeliversNothingUntilItIsTurnedOff() async throws {
        let f = try await ConditionerFixture(behaviour: .echo,
                                             wifi: .shaped(downlink: LinkDirectionParameters(discards: true)),
                                             listeners: Self.listeners)
        defer { f.stopSoon() }
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        #expect(client.write(Array("one".utf8)))
        // The upstream got it and echoed it; the conditioner threw the echo away.
        guard await eventually("the echo discarded", within: 30, until: {
            await Self.counters(f).bytesDiscardedDownlink == 3
        }) else { return }
        #expect(await client.read(timeout: .milliseconds(200)) == .timedOut, "a discarded byte was delivered")
        #expect(await Self.counters(f).bytesDownlink == 0)
        f.conditioner.setLink(.wifi, InterfaceLink())
        _ = await f.conditioner.snapshot()  // the command has been handled once this returns
        #expect(client.write(Array("two".utf8)))
        #expect(await client.read(timeout: .seconds(10)) == .data(Array("two".utf8)))
        #expect(await Self.counters(f).bytesDiscardedDownlink == 3)
    }

    @Test func aDiscardingDownlinkKeepsReadingTheUpstreamWithNoBackpressure() async throws {
        // With backpressure the upstream would be read only up to the queue limit (1 MiB)
        // while the client reads nothing; discarded, it is read on and on.
        let f = try await ConditionerFixture(behaviour: .endless(limit: 1 << 26),
                                             wifi: .shaped(downlink: LinkDirectionParameters(discards: true)),
                                             listeners: Self.listeners)
        defer { f.stopSoon() }
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        #expect(await eventually("8 MiB discarded", within: 60, until: {
            await Self.counters(f).bytesDiscardedDownlink > 8 << 20
        }))
        #expect(await client.read(timeout: .milliseconds(100)) == .timedOut)
    }

    @Test func aDiscardingUplinkKeepsWhatTheAppSendsFromTheUpstream() async throws {
        let f = try await ConditionerFixture(behaviour: .echo,
                                             wifi: .shaped(downlink: .transparent, uplink: LinkDirectionParameters(discards: true)),
                                             listeners: Self.listeners)
        defer { f.stopSoon() }
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        #expect(client.write(Array("secret".utf8)))
        guard await eventually("the app's bytes discarded", within: 30, until: {
            await Self.counters(f).bytesDiscardedUplink == 6
        }) else { return }
        #expect(await Self.counters(f).bytesUplink == 0)
        let received = f.upstream.received.withLock { $0 }
        let nothing = received.allSatisfy(\.isEmpty)
        #expect(nothing, "the upstream received \(received)")
    }

    @Test func a64KiBBodyArrivesInSlicesAGapApart() async throws {
        let slicing = LinkDirectionParameters.Slicing(averageBytes: 1000, variationBytes: 200, gap: .milliseconds(3))
        let body = 64 * 1024
        let f = try await ConditionerFixture(behaviour: .stream(bytes: body),
                                             wifi: .shaped(downlink: LinkDirectionParameters(slicing: slicing)),
                                             listeners: Self.listeners)
        defer { f.stopSoon() }
        let start = ContinuousClock.now
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        let (bytes, reads) = await OffPool.run {
            var bytes: [UInt8] = [], reads = 0
            while bytes.count < body, case .data(let chunk) = client.read(timeout: .seconds(10)) {
                bytes += chunk
                reads += 1
            }
            return (bytes, reads)
        }
        let elapsed = ContinuousClock.now - start
        #expect(bytes == pattern(body))
        // At least ⌈65536 / 1200⌉ = 55 slices, so at least 54 gaps of 3 ms.
        #expect(elapsed >= .milliseconds(54 * 3), "the body came in \(elapsed)")
        #expect(elapsed < .seconds(60), "the body came in \(elapsed)")
        #expect(reads > 1, "the body came in one read")
    }
}
