import BenchCore
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import LinkConditioner
#if canImport(Glibc)
import Glibc
#endif

/// `stop()` while a connection's upstream connect is still pending: the upstream socket
/// is closed at once, and the stop ends. (Before: the stop's graceful shutdown of that
/// socket was queued behind the connect and never ran, the socket stayed open, and the
/// loop, the stop, and with them a whole scenario, waited forever: chaos seed 147 under
/// flaky-wifi hung 4 runs of 6.)
@Suite(.timeLimit(.minutes(2))) struct PendingConnectShutdownTests {
    /// A listening socket that never accepts, its one-place accept queue already full:
    /// the kernel drops later SYNs, so a connect to it stays pending.
    final class FullUpstream {
        let listener: Int32
        var fillers: [Int32] = []
        let address: SocketAddress

        init(host: String) throws {
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.listener = listener
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, host, &address.sin_addr)
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
            }
            guard bound == 0, Glibc.listen(listener, 0) == 0 else { throw POSIXError(.EADDRINUSE) }
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
            }
            self.address = SocketAddress(host: host, port: UInt16(bigEndian: address.sin_port))
            // Two non-blocking connects: the first fills the queue, the second waits in SYN_SENT.
            for _ in 0..<2 {
                let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
                _ = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) }
                }
                fillers.append(filler)
            }
        }

        deinit {
            for fd in fillers + [listener] { close(fd) }
        }
    }

    @Test func stopEndsWhileAnUpstreamConnectIsPending() async throws {
        let upstream = try FullUpstream(host: "127.0.0.93")
        let events = EventCollector()
        let conditioner = try await LinkConditioner.start(
            configuration: ConditionerConfiguration(
                upstream: upstream.address, listeners: [.wifi: SocketAddress(host: "127.0.0.94", port: 0)],
                profile: Profile(name: "pending", initial: [:])),
            sink: events)
        let client = try BlockingSocket.mustConnect(to: conditioner.endpoints[.wifi]!)
        let accepted = await events.wait(timeout: .seconds(30)) { all in
            all.contains { if case .connectionAccepted = $0.kind { true } else { false } }
        }
        #expect(accepted)
        let connected = events.all.contains { if case .upstreamConnected = $0.kind { true } else { false } }
        #expect(!connected, "the upstream connect was to stay pending (its accept queue is full)")
        // The stop on a thread of its own, so that a stop that never ends fails this test
        // instead of hanging the run.
        let result = Mutex<Int32?>(nil)
        Thread { let rc = conditioner.stop(); result.withLock { $0 = rc } }.start()
        let ended = await pollUntil(within: 20) { result.withLock { $0 } != nil }
        #expect(ended, "stop() did not end within 20 s while an upstream connect was pending")
        #expect(result.withLock { $0 } == 0, "every handle closed")
        _ = client
    }
}
