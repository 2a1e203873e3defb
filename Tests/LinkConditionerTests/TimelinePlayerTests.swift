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

    // MARK: Driven by a test (the control API)

    static let second: UInt64 = 1_000_000_000
    /// Phases at 10, 20 and 30 s of a 60 s profile, started at 1,000 s of the monotonic clock.
    func commute() -> TimelinePlayer {
        let profile = Profile(
            name: "commute", duration: .seconds(60),
            timeline: [
                Phase(at: .seconds(10), label: "station", changes: [.wifi: wifiUp]),
                Phase(at: .seconds(20), label: "tunnel", changes: [.wifi: wifiDown]),
                Phase(at: .seconds(30), label: "out", changes: [.wifi: wifiUp]),
            ])
        return TimelinePlayer(profile: profile, start: 1_000 * Self.second)
    }

    @Test("a paused timeline plays nothing and stands still; resumed, it goes on where it stopped")
    func pauseAndResume() {
        let s = Self.second
        var player = commute()
        let paused = player.pause(now: 1_005 * s)
        let pausedAgain = player.pause(now: 1_006 * s)
        #expect(paused && !pausedAgain)
        #expect(player.nextDeadline() == nil)
        #expect(player.due(now: 1_050 * s).isEmpty)
        #expect(player.position(now: 1_050 * s) == 5 * s)
        let resumed = player.resume(now: 1_100 * s)
        let resumedAgain = player.resume(now: 1_100 * s)
        #expect(resumed && !resumedAgain)
        // 95 s of pause: the station phase (10 s) is due at 1,105 s, and the run ends 95 s later.
        #expect(player.nextDeadline() == 1_105 * s)
        #expect(player.endOfRun == 1_155 * s)
        #expect(player.due(now: 1_104 * s).isEmpty)
        #expect(player.due(now: 1_105 * s).map(\.label) == ["station"])
    }

    @Test("moved forward, the phases passed over are due at once and the rest keep their offsets")
    func moveForward() {
        let s = Self.second
        var player = commute()
        let move = player.move(to: 25 * s, now: 1_002 * s)
        #expect(move == TimelinePlayer.Move(fromInitial: false, phases: Array(player.phases[0..<2])))
        #expect(player.position(now: 1_002 * s) == 25 * s)
        #expect(player.nextDeadline() == 1_007 * s)  // "out" at 30 s: 5 s from now
        #expect(player.due(now: 1_007 * s).map(\.label) == ["out"])
        #expect(player.isFinished)
    }

    @Test("moved back, the driver starts from the initial setup and plays the phases up to the position")
    func moveBack() {
        let s = Self.second
        var player = commute()
        #expect(player.due(now: 1_031 * s).count == 3)
        let move = player.move(to: 15 * s, now: 1_031 * s)
        #expect(move.fromInitial)
        #expect(move.phases.map(\.label) == ["station"])
        #expect(!player.isFinished)
        #expect(player.position(now: 1_031 * s) == 15 * s)
        #expect(player.due(now: 1_036 * s).map(\.label) == ["tunnel"])
    }

    @Test("a move while paused stays paused at the position; a move past the end stops at the duration")
    func movePausedAndPastTheEnd() {
        let s = Self.second
        var player = commute()
        _ = player.pause(now: 1_001 * s)
        let move = player.move(to: 12 * s, now: 1_040 * s)
        #expect(move.phases.map(\.label) == ["station"])
        #expect(player.isPaused)
        #expect(player.position(now: 1_090 * s) == 12 * s)
        #expect(player.due(now: 1_090 * s).isEmpty)
        _ = player.resume(now: 1_100 * s)
        #expect(player.nextDeadline() == 1_108 * s)  // the tunnel at 20 s: 8 s after the resume
        let end = player.move(to: 600 * s, now: 1_100 * s)
        #expect(end.phases.map(\.label) == ["tunnel", "out"])
        #expect(player.position(now: 1_100 * s) == 60 * s)
        #expect(player.endOfRun == 1_100 * s)
    }
}
