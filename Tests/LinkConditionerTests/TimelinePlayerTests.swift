import BenchCore
import Testing
@testable import LinkConditioner

@Suite("TimelinePlayer")
struct TimelinePlayerTests {
    let wifiDown = InterfaceSetup(state: .down(.blackhole))
    let wifiUp = InterfaceSetup(state: .up)

    @Test("a subway commute: phases come out once each, in order, at start + at")
    func playsPhasesInOrder() {
        let profile = Profile(
            name: "commute",
            duration: .seconds(60),
            timeline: [
                Phase(at: .seconds(20), label: "tunnel 1", changes: [.wifi: wifiDown]),
                Phase(at: .seconds(10), label: "station", changes: [.wifi: wifiUp]),
                Phase(at: .seconds(30), label: "out", changes: [.wifi: wifiUp]),
            ])
        let start: UInt64 = 1_000_000_000
        var player = TimelinePlayer(profile: profile, start: start)
        #expect(player.endOfRun == start + 60 * 1_000_000_000)
        #expect(player.nextDeadline() == start + 10 * 1_000_000_000)
        #expect(player.due(now: start).isEmpty)
        // The timer fires a little late: the station phase.
        #expect(player.due(now: start + 10_000_000_100).map(\.label) == ["station"])
        #expect(player.due(now: start + 10_000_000_100).isEmpty)  // once only
        #expect(player.nextDeadline() == start + 20 * 1_000_000_000)
        // The loop was busy: both remaining phases are due, in order.
        #expect(player.due(now: start + 45 * 1_000_000_000).map(\.label) == ["tunnel 1", "out"])
        #expect(player.isFinished)
        #expect(player.nextDeadline() == nil)
    }

    @Test("a phase at zero is due at start; phases past the duration are never played")
    func edges() {
        let profile = Profile(
            name: "edges",
            duration: .seconds(5),
            timeline: [
                Phase(at: .zero, label: "first", changes: [:]),
                Phase(at: .seconds(5), label: "at the end", changes: [:]),
                Phase(at: .seconds(6), label: "too late", changes: [:]),
            ])
        var player = TimelinePlayer(profile: profile, start: 0)
        #expect(player.due(now: 0).map(\.label) == ["first"])
        #expect(player.due(now: .max).map(\.label) == ["at the end"])
        #expect(player.isFinished)
    }

    @Test("an empty timeline is finished from the start")
    func emptyTimeline() {
        let player = TimelinePlayer(profile: Profile(name: "static", duration: .seconds(1)), start: 7)
        #expect(player.isFinished)
        #expect(player.nextDeadline() == nil)
        #expect(player.endOfRun == 1_000_000_007)
    }
}
