import BenchCore
@testable import EngineAgent
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `hammer-refused-port`: when the bad app probes (pure), and that its probe really
/// connects (loopback).
@Suite(.timeLimit(.minutes(2))) struct ReachabilityProbeTests {
    let wifi = PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: "127.0.0.2:81")
    let cellular = PathInterface(kind: .cellular, isExpensive: true, isConstrained: false, endpoint: "127.0.0.3:82")

    @Test func probingStartsWhenThePathEmptiesAndStopsWhenItReturns() {
        var rule = ReachabilityProbeRule()
        // Nothing known yet: an empty path probes nothing.
        #expect(rule.pathChanged(NetworkPath(interfaces: [])) == .none)
        #expect(rule.pathChanged(NetworkPath(interfaces: [cellular, wifi])) == .none)
        #expect(rule.pathChanged(NetworkPath(interfaces: [])) == .start(["127.0.0.2:81", "127.0.0.3:82"]))
        // Already probing: a second empty path changes nothing.
        #expect(rule.pathChanged(NetworkPath(interfaces: [])) == .none)
        #expect(rule.pathChanged(NetworkPath(interfaces: [wifi])) == .stop)
        #expect(rule.pathChanged(NetworkPath(interfaces: [wifi])) == .none)
        // The endpoints are those of the last path with interfaces.
        #expect(rule.pathChanged(NetworkPath(interfaces: [])) == .start(["127.0.0.2:81"]))
    }

    @Test func theProbeConnectsOverAndOverWhileThePathIsEmpty() async throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.75", &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0 && listen(fd, 128) == 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        let endpoint = "127.0.0.75:\(UInt16(bigEndian: address.sin_port))"
        let probe = AgentReachabilityProbe(interval: .milliseconds(5))
        probe.pathChanged(NetworkPath(interfaces: [
            PathInterface(kind: .wifi, isExpensive: false, isConstrained: false, endpoint: endpoint),
        ]))
        probe.pathChanged(NetworkPath(interfaces: []))
        defer { probe.stop() }
        // Five connects reach the listener (each completes its handshake in the backlog);
        // the accepts wait on a thread outside the cooperative pool.
        let accepted = await OffPool.run {
            var accepted = 0
            let deadline = ContinuousClock.now + .seconds(10)
            while accepted < 5, ContinuousClock.now < deadline {
                var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&pfd, 1, 100) > 0 else { continue }
                let client = accept(fd, nil, nil)
                if client >= 0 { accepted += 1; close(client) }
            }
            return accepted
        }
        #expect(accepted == 5)
    }
}
