import BenchCore
import Foundation
import Testing
@testable import LinkConditioner

/// A fixed upstream with interception (`bench --https --intercept`): what names no
/// intercepted host still reaches the upstream (the fixture origin) whole, from its first
/// byte. Once, those first bytes stayed held: a TLS handshake with the origin timed out.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct InterceptionPassThroughTests {
    static let interception = ConditionerConfiguration.Interception(
        rules: [try! InterceptRule(parsing: "cdn.example:443")], proxy: SocketAddress(host: "127.0.0.1", port: 9))

    @Test(arguments: [
        ("a TLS handshake", [0x16, 0x03, 0x01, 0x00, 0x05] + Array("hello".utf8)),
        ("an origin-form request", Array("GET /videos/clear/master.m3u8 HTTP/1.1\r\nHost: origin\r\n\r\n".utf8)),
    ])
    func whatNamesNoInterceptedHostReachesTheUpstreamWhole(what: String, first: [UInt8]) async throws {
        let f = try await ConditionerFixture(behaviour: .echo, interception: Self.interception)
        defer { f.stopSoon() }
        let client = try BlockingSocket.mustConnect(to: f.endpoint(.wifi))
        let reader = Task { await client.readAll(limit: first.count + 5, idle: .seconds(10)) }
        #expect(client.write(first))
        #expect(client.write(Array("again".utf8)))
        let (echoed, _) = await reader.value
        #expect(echoed == first + Array("again".utf8), "\(what): the upstream echoed \(echoed.count) bytes")
    }
}
