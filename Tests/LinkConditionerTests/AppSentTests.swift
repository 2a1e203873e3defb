import BenchCore
import Foundation
import Testing
@testable import LinkConditioner

/// `appSent`: when the app began each message, stamped where the conditioner read it,
/// before the link delays it. The judge orders what the app asked by this, never by
/// when the origin saw it. Real sockets.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct AppSentTests {
    private static func sends(_ f: ConditionerFixture) -> [ConditionerEvent] {
        f.events.all.filter { if case .appSent = $0.kind { true } else { false } }
    }

    @Test func oneStampPerMessageTakenAtTheReadNotAtTheDelivery() async throws {
        // 400 ms each way up: what the app sends reaches the upstream 400 ms after the read.
        let slow = LinkDirectionParameters(rate: .unlimited, delay: .milliseconds(400))
        let f = try await ConditionerFixture(behaviour: .echo, wifi: .shaped(downlink: .transparent, uplink: slow))
        defer { f.stopSoon() }
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        #expect(client.write(Array("GET /a HTTP/1.1\r\n\r\n".utf8)))
        #expect(await client.readAll(limit: 19, idle: .seconds(10)).bytes.count == 19)
        // After a reply, the next write begins the next message.
        #expect(client.write(Array("GET /b HTTP/1.1\r\n\r\n".utf8)))
        #expect(await client.readAll(limit: 19, idle: .seconds(10)).bytes.count == 19)
        #expect(await f.events.wait(timeout: .seconds(60)) { events in
            events.filter { if case .bytesForwarded(_, .wifi, .uplink, _, let total) = $0.kind { total == 38 } else { false } }
                .count > 0
        })
        let sends = Self.sends(f)
        #expect(sends.count == 2, "\(sends)")
        guard let first = sends.first else { return }
        if case .appSent(_, .wifi, let bytes) = first.kind { #expect(bytes == 19) } else { Issue.record("\(first)") }
        // The first uplink delivery came at least the link's delay after the stamp.
        let delivered = f.events.all.first { if case .bytesForwarded(_, .wifi, .uplink, _, _) = $0.kind { true } else { false } }
        guard let delivered else { Issue.record("no uplink delivery reported"); return }
        #expect(delivered.time >= first.time + 390_000_000, "stamped at \(first.time), delivered by \(delivered.time)")
    }

    @Test func whatTheAppSendsDuringABlackholeIsStampedWhenItSendsIt() async throws {
        let f = try await ConditionerFixture(behaviour: .echo)
        defer { f.stopSoon() }
        guard let (open, _) = try await DownModeTests.openThenBlackholed(f) else { return }
        #expect(await f.events.wait(timeout: .seconds(60)) { _ in Self.sends(f).count == 1 })
        let before = f.events.all.last?.time ?? 0
        // Two writes, each read on its own, with nothing delivered to the app in between
        // (the blackhole holds everything): one message as far as the conditioner can tell.
        #expect(open.write(Array("asked in".utf8)))
        #expect(await f.events.wait(timeout: .seconds(60)) { _ in Self.sends(f).count == 2 })
        let stamped = Self.sends(f)[1].time
        #expect(open.write(Array(" the dark".utf8)))
        // Held, not delivered: the stamp is the read, long before the interface is up.
        #expect(await open.read(timeout: .milliseconds(300)) == .timedOut)
        f.conditioner.setState(.wifi, .up)
        #expect(await open.readAll(limit: 17, idle: .seconds(10)).bytes == Array("asked in the dark".utf8))
        let up = f.events.all.first { if case .interfaceUp(.wifi) = $0.kind { $0.time > before } else { false } }
        guard let up else { Issue.record("no interfaceUp"); return }
        #expect(stamped >= before && stamped + 300_000_000 <= up.time, "stamped \(stamped), up at \(up.time)")
        #expect(Self.sends(f).count == 2, "releasing the held bytes must not stamp them again")
    }
}
