import BenchCore
import Foundation
import Testing
@testable import LinkConditioner

/// Stopping leaves nothing behind: no handle, no file descriptor, no thread.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ShutdownTests {
    /// Sockets the conditioner holds: its listeners and accepted connections (on its
    /// endpoints) and its upstream connections (to the test upstream's address: the port
    /// alone is not enough, as other tests in this process may use the same port number
    /// on another loopback address).
    private func conditionerSockets(_ endpoints: [SocketAddress], upstream: SocketAddress) -> [ProcessResources.TCPSocket] {
        ProcessResources.openTCPSockets().filter { socket in
            endpoints.contains { $0.host == socket.localHost && $0.port == socket.localPort }
                || (socket.remoteHost == upstream.host && socket.remotePort == upstream.port)
        }
    }

    @Test func stopClosesEveryHandleDescriptorAndThread() async throws {
        let upstream = try TestUpstream(behaviour: .endless(limit: 1 << 30))
        defer { upstream.stop() }
        // The upstream listens before `init` returns: connections wait in its backlog
        // until its accept thread takes them, so nothing here waits for that thread.
        let profile = Profile(name: "shutdown", initial: [
            .wifi: .shaped(downlink: .init(rate: .constant(bitsPerSecond: 2_000_000), delay: .milliseconds(30))),
        ])
        let conditioner = try await LinkConditioner.start(
            configuration: ConditionerConfiguration(upstream: upstream.address, profile: profile),
            sink: EventCollector())
        let endpoints = Array(conditioner.endpoints.values)
        #expect(ProcessResources.threads(named: conditioner.threadName) == 1, "the loop runs on one thread of its own")
        // Open connections in every state: shaped and streaming, blackholed-and-held.
        var clients: [BlockingSocket] = []
        for _ in 0..<5 { clients.append(try BlockingSocket.mustConnect(to: conditioner.endpoints[.wifi]!)) }
        let streaming = clients
        for client in streaming { _ = await client.read(timeout: .seconds(2)) }
        conditioner.setState(.cellular, .down(.blackhole))
        // `setState` is queued to the loop; a snapshot answers after it, so the next
        // connection is accepted blackholed (else the loop may take the accept first
        // and connect it upstream).
        _ = await conditioner.snapshot()
        clients.append(try BlockingSocket.mustConnect(to: conditioner.endpoints[.cellular]!))
        _ = await conditioner.snapshot()
        // 2 listeners + 6 accepted + 5 upstream connections (the blackholed one is held, not connected).
        let held = conditionerSockets(endpoints, upstream: upstream.address)
        #expect(held.count == 13, "\(held) endpoints \(endpoints) upstream \(upstream.address)")

        #expect(await conditioner.stop() == 0, "uv_loop_close must return 0: every handle closed")
        #expect(await conditioner.stop() == 0, "stop is idempotent")
        #expect(conditionerSockets(endpoints, upstream: upstream.address) == [], "a socket outlived stop()")
        #expect(ProcessResources.threads(named: conditioner.threadName) == 0, "the loop thread outlived stop()")
        clients.removeAll()
    }

    @Test func bindFailureIsATypedErrorAndLeaksNothing() async throws {
        let upstream = try TestUpstream(behaviour: .echo)
        defer { upstream.stop() }
        // An address of its own (other tests listen on 127.0.0.2 at the same time).
        let wifiHost = "127.0.0.92"
        let socketsBefore = ProcessResources.openTCPSockets().filter { $0.localHost == wifiHost }
        // 192.0.2.1 (TEST-NET-1) is not an address of this machine: bind fails with EADDRNOTAVAIL.
        let configuration = ConditionerConfiguration(
            upstream: upstream.address,
            listeners: [.wifi: SocketAddress(host: wifiHost, port: 0), .cellular: SocketAddress(host: "192.0.2.1", port: 9)])
        await #expect {
            _ = try await LinkConditioner.start(configuration: configuration, sink: EventCollector())
        } throws: { error in
            (error as? LibUVError).map { $0.description.contains("bind cellular") } ?? false
        }
        // The wifi listener that did bind was closed again.
        let socketsAfter = ProcessResources.openTCPSockets().filter { $0.localHost == wifiHost && $0.state == ProcessResources.listening }
        #expect(socketsAfter.allSatisfy { socketsBefore.contains($0) }, "a listener leaked: \(socketsAfter)")
    }
}
