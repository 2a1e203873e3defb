import BenchCore
import Foundation
import Testing
@testable import LinkConditioner

/// Stopping leaves nothing behind: no handle, no file descriptor, no thread.
@Suite(.serialized)
struct ShutdownTests {
    private func openFileDescriptors() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
    }

    private func threads() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
    }

    @Test func stopClosesEveryHandleDescriptorAndThread() async throws {
        let upstream = try TestUpstream(behaviour: .endless(limit: 1 << 30))
        defer { upstream.stop() }
        try await Task.sleep(for: .milliseconds(100))  // let the upstream's accept thread settle
        let fdsBefore = openFileDescriptors()
        let threadsBefore = threads()

        let profile = Profile(name: "shutdown", initial: [
            .wifi: .shaped(downlink: .init(rate: .constant(bitsPerSecond: 2_000_000), delay: .milliseconds(30))),
        ])
        let conditioner = try LinkConditioner.start(
            configuration: ConditionerConfiguration(upstream: upstream.address, profile: profile),
            sink: EventCollector())
        #expect(threads() == threadsBefore + 1, "the loop runs on exactly one thread of its own")
        // Open connections in every state: shaped and streaming, blackholed-and-held.
        var clients: [BlockingSocket] = []
        for _ in 0..<5 { clients.append(try BlockingSocket.mustConnect(to: conditioner.endpoints[.wifi]!)) }
        for client in clients { _ = client.read(timeout: .seconds(2)) }
        conditioner.setState(.cellular, .down(.blackhole))
        clients.append(try BlockingSocket.mustConnect(to: conditioner.endpoints[.cellular]!))
        _ = await conditioner.snapshot()

        #expect(conditioner.stop() == 0, "uv_loop_close must return 0: every handle closed")
        #expect(conditioner.stop() == 0, "stop is idempotent")
        clients.removeAll()
        try await Task.sleep(for: .milliseconds(200))  // the upstream's serving threads notice the closes
        #expect(openFileDescriptors() == fdsBefore)
        #expect(threads() <= threadsBefore)
    }

    @Test func bindFailureIsATypedErrorAndLeaksNothing() async throws {
        let upstream = try TestUpstream(behaviour: .echo)
        defer { upstream.stop() }
        try await Task.sleep(for: .milliseconds(100))
        let fdsBefore = openFileDescriptors()
        let threadsBefore = threads()
        // 192.0.2.1 (TEST-NET-1) is not an address of this machine: bind fails with EADDRNOTAVAIL.
        let configuration = ConditionerConfiguration(
            upstream: upstream.address,
            listeners: [.wifi: SocketAddress(host: "127.0.0.2", port: 0), .cellular: SocketAddress(host: "192.0.2.1", port: 9)])
        #expect {
            _ = try LinkConditioner.start(configuration: configuration, sink: EventCollector())
        } throws: { error in
            (error as? LibUVError).map { $0.description.contains("bind cellular") } ?? false
        }
        #expect(openFileDescriptors() == fdsBefore)
        #expect(threads() == threadsBefore)
    }
}
