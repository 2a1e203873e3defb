import BenchCore
import Testing
@testable import LinkConditioner

/// The overlay rule, driven like the conditioner drives it: a `TimelinePlayer` on a
/// hand-moved clock makes the profile's phases due, the scenario's steps come in
/// between, and the test reads the actions as a story.
@Suite("ProfileOverlay")
struct ProfileOverlayTests {
    static let second: UInt64 = 1_000_000_000
    static let up = InterfaceSetup(state: .up)
    static func down(_ mode: DownMode) -> InterfaceSetup { InterfaceSetup(state: .down(mode)) }
    static let lossy = InterfaceSetup(state: .up, link: InterfaceLink(downlink: LinkDirectionParameters(loss: .bernoulli(probability: 0.1))))

    /// A flaky-WiFi-like timeline: drop at 10 s, back at 14 s, a loss burst at 20 s
    /// (link only), a blackhole at 30 s, back at 35 s.
    static let profile = Profile(
        name: "flaky", duration: .seconds(60),
        timeline: [
            Phase(at: .seconds(10), label: "drop 1", changes: [.wifi: down(.reset)]),
            Phase(at: .seconds(14), changes: [.wifi: up]),
            Phase(at: .seconds(20), label: "loss burst", changes: [.wifi: lossy]),
            Phase(at: .seconds(30), label: "drop 2", changes: [.wifi: InterfaceSetup(state: .down(.blackhole), link: lossy.link)]),
            Phase(at: .seconds(35), changes: [.wifi: lossy]),
        ])

    /// The actions of every phase due at `seconds` on the manual clock.
    static func tick(_ player: inout TimelinePlayer, _ overlay: inout ProfileOverlay, at seconds: UInt64) -> [ProfileOverlay.Action] {
        player.due(now: seconds * second).flatMap { overlay.play($0) }
    }

    @Test("with nothing held, the profile's phases apply as they come")
    func profileAlone() {
        var player = TimelinePlayer(profile: Self.profile, start: 0)
        var overlay = ProfileOverlay(initial: Self.profile.initial)
        #expect(overlay.states == [.wifi: .up, .cellular: .up])
        #expect(Self.tick(&player, &overlay, at: 10) == [.setLink(.wifi, InterfaceLink()), .setState(.wifi, .down(.reset))])
        #expect(Self.tick(&player, &overlay, at: 14) == [.setLink(.wifi, InterfaceLink()), .setState(.wifi, .up)])
        // A phase that changes only the link leaves the state alone.
        #expect(Self.tick(&player, &overlay, at: 20) == [.setLink(.wifi, Self.lossy.link)])
        #expect(overlay.lanes[.wifi]?.state == .up)
    }

    @Test("a down step wins and holds: the profile's state changes wait, its link changes apply")
    func downStepHolds() {
        var player = TimelinePlayer(profile: Self.profile, start: 0)
        var overlay = ProfileOverlay(initial: Self.profile.initial)
        // 8 s: the scenario takes WiFi down (refuse) before the profile's drop.
        #expect(overlay.step(.wifi, .down(.refuse)) == [.setState(.wifi, .down(.refuse))])
        // 10 s: the profile's drop is held (WiFi stays down in the scenario's mode)…
        #expect(Self.tick(&player, &overlay, at: 10) == [.setLink(.wifi, InterfaceLink()), .held(.wifi, profile: .down(.reset))])
        // 14 s: …and so is its return.
        #expect(Self.tick(&player, &overlay, at: 14) == [.setLink(.wifi, InterfaceLink()), .held(.wifi, profile: .up)])
        // 20 s: the loss burst's link applies to the held interface.
        #expect(Self.tick(&player, &overlay, at: 20) == [.setLink(.wifi, Self.lossy.link)])
        #expect(overlay.lanes[.wifi] == ProfileOverlay.Lane(profile: .up, hold: .refuse, state: .down(.refuse)))
        // 22 s: the scenario brings WiFi up; the profile has it up too: no override.
        #expect(overlay.step(.wifi, .up) == [.setState(.wifi, .up)])
        // 30 s: the profile plays again on it.
        #expect(Self.tick(&player, &overlay, at: 30) == [.setLink(.wifi, Self.lossy.link), .setState(.wifi, .down(.blackhole))])
    }

    @Test("an up step wins over the profile's down until the profile's next state change")
    func upStepOverridesUntilTheNextChange() {
        var player = TimelinePlayer(profile: Self.profile, start: 0)
        var overlay = ProfileOverlay(initial: Self.profile.initial)
        _ = Self.tick(&player, &overlay, at: 10)  // the profile's drop 1: WiFi down (reset)
        #expect(overlay.lanes[.wifi]?.state == .down(.reset))
        // 11 s: the scenario brings WiFi up in the middle of the profile's outage.
        #expect(overlay.step(.wifi, .up) == [.overridden(.wifi, profile: .down(.reset)), .setState(.wifi, .up)])
        // 14 s: the profile's own return changes nothing that is not already so.
        #expect(Self.tick(&player, &overlay, at: 14) == [.setLink(.wifi, InterfaceLink()), .setState(.wifi, .up)])
        // 30 s: its next drop applies.
        #expect(Self.tick(&player, &overlay, at: 30).contains(.setState(.wifi, .down(.blackhole))))
    }

    @Test("a link-only phase during an override does not end it")
    func linkOnlyPhaseKeepsTheOverride() {
        let profile = Profile(
            name: "p", duration: .seconds(60),
            timeline: [
                Phase(at: .seconds(1), changes: [.wifi: Self.down(.reset)]),
                Phase(at: .seconds(5), changes: [.wifi: InterfaceSetup(state: .down(.reset), link: Self.lossy.link)]),
            ])
        var player = TimelinePlayer(profile: profile, start: 0)
        var overlay = ProfileOverlay(initial: profile.initial)
        _ = Self.tick(&player, &overlay, at: 1)
        _ = overlay.step(.wifi, .up)
        #expect(Self.tick(&player, &overlay, at: 5) == [.setLink(.wifi, Self.lossy.link)])
        #expect(overlay.lanes[.wifi]?.state == .up)
    }

    @Test("interfaces held from the start stay down until a step brings them up; the others play the profile")
    func heldFromTheStart() {
        let profile = Profile(
            name: "commute", duration: .seconds(60),
            initial: [.wifi: Self.down(.refuse), .cellular: Self.up],
            timeline: [
                Phase(at: .seconds(5), label: "tunnel", changes: [.cellular: Self.down(.blackhole)]),
                Phase(at: .seconds(9), label: "station", changes: [.cellular: Self.up]),
            ])
        var player = TimelinePlayer(profile: profile, start: 0)
        var overlay = ProfileOverlay(initial: profile.initial, holds: [.wifi: .refuse, .cellular: .refuse])
        #expect(overlay.states == [.wifi: .down(.refuse), .cellular: .down(.refuse)])
        // The scenario brings WiFi up: the profile has no WiFi (down) at that instant.
        #expect(overlay.step(.wifi, .up) == [.overridden(.wifi, profile: .down(.refuse)), .setState(.wifi, .up)])
        // The tunnel and the station happen to a cellular interface the scenario never brought up.
        #expect(Self.tick(&player, &overlay, at: 5) == [.setLink(.cellular, InterfaceLink()), .held(.cellular, profile: .down(.blackhole))])
        #expect(Self.tick(&player, &overlay, at: 9) == [.setLink(.cellular, InterfaceLink()), .held(.cellular, profile: .up)])
        #expect(overlay.states == [.wifi: .up, .cellular: .down(.refuse)])
    }

    @Test("a second down step changes the held mode; the hold lasts until up")
    func downAgainChangesTheMode() {
        var overlay = ProfileOverlay(initial: Self.profile.initial)
        _ = overlay.step(.wifi, .down(.reset))
        #expect(overlay.step(.wifi, .down(.blackhole)) == [.setState(.wifi, .down(.blackhole))])
        #expect(overlay.lanes[.wifi]?.hold == .blackhole)
        var player = TimelinePlayer(profile: Self.profile, start: 0)
        #expect(Self.tick(&player, &overlay, at: 14).contains(.held(.wifi, profile: .down(.reset))))
    }
}
