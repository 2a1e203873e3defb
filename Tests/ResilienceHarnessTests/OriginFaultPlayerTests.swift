import BenchCore
import FixtureOrigin
import Foundation
import TestSupport
import Testing
@testable import ResilienceHarness

/// A profile's origin fault windows open and close on time, and land on the origin and
/// in the trace.
@Suite(.timeLimit(.minutes(2))) struct OriginFaultPlayerTests {
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
        // The run's clock is moved by hand: the window is open from the moment the test
        // moves the clock past 100 ms until it moves it past 300 ms, however late a loaded
        // machine runs the player (which re-reads the clock at least every 200 ms).
        let windows = [OriginFaultWindow(at: .milliseconds(100), duration: .milliseconds(200), label: "portal", fault: .captivePortal)]
        try await withOrigin { server in
            server.setFaultRules(try FaultRuleSet(rules: [FaultRule(id: "scenario", path: "/license", fault: .malformedPlaylist)]))
            let clock = ManualClock(startingAt: 5 * Self.second)
            let collector = TraceCollector(clock: clock)
            let task = try #require(OriginFaultPlayer.start(windows, origin: server, collector: collector, start: collector.now))
            defer { task.cancel() }
            let ids = { server.faultRules.rules.map(\.id) }
            let events = {
                collector.entries.compactMap { entry -> HarnessEvent? in
                    if case .harness(let event) = entry.event { event } else { nil }
                }
            }
            let began = HarnessEvent.originFaultBegan(
                index: 0, label: "portal", path: "/**", fault: "captive portal", rule: "profile-origin-0")
            let ended = HarnessEvent.originFaultEnded(index: 0, label: "portal", rule: "profile-origin-0")
            #expect(ids() == ["scenario"] && events().isEmpty, "nothing opens before its time")

            clock.advance(by: .milliseconds(100))
            await eventually("the window's rule on the origin, first (rules: \(ids()))") { ids() == ["profile-origin-0", "scenario"] }
            await eventually("the window's beginning in the trace (\(events()))") { events() == [began] }

            clock.advance(by: .milliseconds(200))
            await eventually("the window's rule gone from the origin (rules: \(ids()))") { ids() == ["scenario"] }
            await eventually("the window's end in the trace (\(events()))") { events() == [began, ended] }
            // Stamped with the run's clock when each change was made: on time to the nanosecond.
            #expect(collector.entries.map(\.t) == [100_000_000, 300_000_000])
        }
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
