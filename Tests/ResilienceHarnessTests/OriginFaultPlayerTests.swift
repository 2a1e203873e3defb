import BenchCore
import FixtureOrigin
import Foundation
import Testing
@testable import ResilienceHarness

/// A profile's origin fault windows open and close on time, and land on the origin and
/// in the trace.
@Suite struct OriginFaultPlayerTests {
    static let second: UInt64 = 1_000_000_000

    @Test("windows open and close on a hand-moved clock; back to back, the first closes before the next opens")
    func schedule() {
        let windows = [
            OriginFaultWindow(at: .seconds(10), duration: .seconds(5), fault: .captivePortal),
            OriginFaultWindow(at: .seconds(12), duration: .seconds(20), fault: .status(code: 503, retryAfter: nil)),
            OriginFaultWindow(at: .seconds(15), duration: .seconds(1), fault: .malformedPlaylist),
        ]
        let start = 3 * Self.second
        var schedule = OriginFaultSchedule(windows: windows, start: start)
        #expect(schedule.nextDeadline() == start + 10 * Self.second)
        #expect(schedule.due(now: start + 9 * Self.second).isEmpty)
        #expect(schedule.due(now: start + 10 * Self.second) == [.open(0)])
        #expect(schedule.due(now: start + 10 * Self.second).isEmpty, "each change once")
        // The loop was late: 12 s and 15 s are both due, in order, the close at 15 s first.
        #expect(schedule.due(now: start + 15 * Self.second + 1) == [.open(1), .close(0), .open(2)])
        #expect(schedule.nextDeadline() == start + 16 * Self.second)
        #expect(schedule.due(now: .max) == [.close(2), .close(1)])
        #expect(schedule.nextDeadline() == nil)
    }

    @Test("a window's rule is on the origin, first, while it is open, and both ends are in the trace")
    func playsOnALiveOrigin() async throws {
        let windows = [
            // Open long enough to be seen open however late a loaded machine schedules the poll.
            OriginFaultWindow(at: .milliseconds(100), duration: .seconds(3), label: "portal", fault: .captivePortal)
        ]
        try await withOrigin { server in
            server.setFaultRules(try FaultRuleSet(rules: [FaultRule(id: "scenario", path: "/license", fault: .malformedPlaylist)]))
            let collector = TraceCollector()
            let start = collector.now
            let task = try #require(OriginFaultPlayer.start(windows, origin: server, collector: collector, start: start))
            defer { task.cancel() }
            #expect(try await eventually { server.faultRules.rules.map(\.id) == ["profile-origin-0", "scenario"] })
            #expect(try await eventually { server.faultRules.rules.map(\.id) == ["scenario"] })
            let events = collector.entries.compactMap { entry -> HarnessEvent? in
                if case .harness(let event) = entry.event { event } else { nil }
            }
            #expect(events == [
                .originFaultBegan(index: 0, label: "portal", path: "/**", fault: "captive portal", rule: "profile-origin-0"),
                .originFaultEnded(index: 0, label: "portal", rule: "profile-origin-0"),
            ])
            let times = collector.entries.map(\.t)
            // Neither end early: a late loop may only delay them.
            #expect(times.count == 2 && times[0] >= start + 100_000_000 && times[1] >= start + 3_100_000_000)
        }
    }

    /// Polls `condition` every 10 ms for up to 10 s.
    private func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<1000 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}

/// Starts an origin over a small catalog for one test and stops it afterwards.
private func withOrigin<T>(_ body: (OriginServer) async throws -> T) async throws -> T {
    let configuration = OriginConfiguration(catalog: CatalogConfiguration(sizeScale: 0.01, largeVideoDuration: 60), threads: 1)
    let server = try await OriginServer.start(configuration: configuration)
    do {
        let result = try await body(server)
        try await server.stop()
        return result
    } catch {
        try? await server.stop()
        throw error
    }
}
