import BenchCore
import Foundation
import TestSupport
import Testing
@testable import LinkConditioner

/// The network path the app is told about, and profiles played on a live conditioner.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct PathAndTimelineTests {
    private func published(_ f: ConditionerFixture) -> [NetworkPath] {
        f.kinds().compactMap { if case .pathPublished(let path) = $0 { path } else { nil } }
    }

    @Test func pathFollowsInterfacesGoingDownAndUp() async throws {
        let f = try await ConditionerFixture(behaviour: .echo)
        defer { f.stopSoon() }
        var updates = f.conditioner.pathUpdates.makeAsyncIterator()
        let first = await updates.next()
        #expect(first?.interfaces.map(\.kind) == [.wifi, .cellular])
        #expect(first?.interface(.cellular)?.isExpensive == true)
        #expect(first?.interface(.wifi)?.endpoint == f.endpoint(.wifi).description)

        f.conditioner.setState(.wifi, .down(.reset))
        let second = await updates.next()
        #expect(second?.interfaces.map(\.kind) == [.cellular])
        #expect(second?.status == .satisfied)

        f.conditioner.setState(.cellular, .down(.refuse))
        let third = await updates.next()
        #expect(third?.status == .unsatisfied)

        f.conditioner.setState(.wifi, .up)
        let fourth = await updates.next()
        #expect(fourth?.interfaces.map(\.kind) == [.wifi])
        #expect(published(f).count == 4)
    }

    /// Gate run 4 (a profile's reset drop, then the scenario's own blackhole outage with
    /// its update withheld, then up): the true path went "no WiFi" (told), "WiFi" again
    /// (blackholed, withheld: not told), and stayed "WiFi" when it came up. Coming up is
    /// an event the OS reports: the app is told WiFi is back, not left offline.
    @Test func anInterfaceComingUpTellsTheAppAPathAWithheldUpdateHidFromIt() async throws {
        let f = try await ConditionerFixture(behaviour: .echo)
        defer { f.stopSoon() }
        var updates = f.conditioner.pathUpdates.makeAsyncIterator()
        _ = await updates.next()
        f.conditioner.setState(.wifi, .down(.reset))
        #expect(await updates.next()?.interface(.wifi) == nil)
        f.conditioner.setState(.wifi, .down(.blackhole), pathUpdate: .withheld)
        let hidden = await f.conditioner.snapshot()
        #expect(hidden.path.interface(.wifi) != nil && hidden.publishedPath.interface(.wifi) == nil)
        f.conditioner.setState(.wifi, .up)
        #expect(await updates.next()?.interface(.wifi) != nil, "the app is told WiFi is back")
    }

    @Test func delayedPathUpdateArrivesLateAndWithheldNeverArrives() async throws {
        let f = try await ConditionerFixture(behaviour: .echo)
        defer { f.stopSoon() }
        f.conditioner.setState(.wifi, .down(.reset), pathUpdate: .delayed(.milliseconds(400)))
        let snapshot = await f.conditioner.snapshot()
        #expect(snapshot.path.interface(.wifi) == nil, "the real path changed at once")
        #expect(snapshot.publishedPath.interface(.wifi) != nil, "the app has not been told yet")
        #expect(await f.events.wait(timeout: .seconds(30)) { events in
            events.contains { if case .pathPublished(let p) = $0.kind { p.interface(.wifi) == nil } else { false } }
        })
        let changed = f.events.all.first { if case .pathChanged(let p) = $0.kind { p.interface(.wifi) == nil } else { false } }
        let told = f.events.all.first { if case .pathPublished(let p) = $0.kind { p.interface(.wifi) == nil } else { false } }
        let lateness = try #require(told).time - (try #require(changed)).time
        #expect(lateness >= 390_000_000, "published only \(lateness) ns after the change")

        f.conditioner.setState(.cellular, .down(.reset), pathUpdate: .withheld)
        // The property: a withheld update never comes, not even after a delay (the publisher's
        // rule itself is unit-tested on a manual clock in PathPublisherTests).
        try await watchWindow(.milliseconds(300))
        let after = await f.conditioner.snapshot()
        #expect(after.path.status == .unsatisfied)
        #expect(after.publishedPath.interface(.cellular) != nil, "a withheld update must not reach the app")
    }

    @Test func timelinePlaysPhasesInOrderAndAppliesThemLive() async throws {
        var down = InterfaceSetup.defaultSetup(for: .wifi)
        down.state = .down(.blackhole)
        let up = InterfaceSetup.shaped(downlink: .init(rate: .constant(bitsPerSecond: 1_000_000)))
        let timeline = [
            Phase(at: .milliseconds(150), label: "tunnel", changes: [.wifi: down]),
            Phase(at: .milliseconds(450), label: "out", changes: [.wifi: up]),
        ]
        let f = try await ConditionerFixture(behaviour: .echo, timeline: timeline)
        defer { f.stopSoon() }
        #expect(await f.events.wait(timeout: .seconds(30)) { events in
            events.contains { if case .phaseApplied(_, "out", _) = $0.kind { true } else { false } }
        })
        let kinds = f.kinds()
        let tunnel = try #require(kinds.firstIndex { if case .phaseApplied(0, "tunnel", _) = $0 { true } else { false } })
        let out = try #require(kinds.firstIndex { if case .phaseApplied(1, "out", _) = $0 { true } else { false } })
        #expect(tunnel < out)
        #expect(kinds.contains { $0 == .interfaceDown(interface: .wifi, mode: .blackhole) })
        #expect(kinds.contains { $0 == .interfaceUp(interface: .wifi) })
        let times = f.events.all.compactMap { e -> UInt64? in if case .phaseApplied = e.kind { e.time } else { nil } }
        #expect(times.count == 2 && times[0] >= 150_000_000 && times[1] >= 450_000_000)
        // A blackhole leaves the path as it was; nothing to publish for the tunnel.
        #expect(published(f).allSatisfy { $0.interface(.wifi) != nil })
    }

    @Test func scenarioStepsOverlayTheTimeline() async throws {
        // The profile drops WiFi at 150 ms and brings it back at 450 ms; the driver holds
        // both interfaces down (refuse) from the start, as a scenario's held-down start
        // does: given at start, so no race with the profile's first phase on a busy machine.
        let down = InterfaceSetup(state: .down(.reset))
        let timeline = [
            Phase(at: .milliseconds(150), label: "drop", changes: [.wifi: down, .cellular: down]),
            Phase(at: .milliseconds(450), label: "back", changes: [.wifi: .defaultSetup(for: .wifi)]),
        ]
        let f = try await ConditionerFixture(
            behaviour: .echo, timeline: timeline, holds: [.cellular: .refuse, .wifi: .refuse])
        defer { f.stopSoon() }
        #expect(await f.events.wait(timeout: .seconds(30)) { events in
            events.contains { if case .phaseApplied(_, "back", _) = $0.kind { true } else { false } }
        })
        let snapshot = await f.conditioner.snapshot()
        #expect(snapshot.interfaces.map(\.state) == [.down(.refuse), .down(.refuse)], "both still held down")
        let kinds = f.kinds()
        #expect(kinds.contains(.profileStateHeld(interface: .wifi, state: .down(.reset), phase: 0)))
        #expect(kinds.contains(.profileStateHeld(interface: .cellular, state: .down(.reset), phase: 0)))
        #expect(kinds.contains(.profileStateHeld(interface: .wifi, state: .up, phase: 1)))
        #expect(!kinds.contains(.interfaceDown(interface: .wifi, mode: .reset)), "the profile's drop was held off")
        // The driver brings both up: cellular over the profile's down, which still holds for it.
        f.conditioner.setState(.wifi, .up)
        f.conditioner.setState(.cellular, .up)
        #expect(await f.events.wait(timeout: .seconds(30)) { events in
            events.contains { $0.kind == .profileStateOverridden(interface: .cellular, state: .down(.reset)) }
        })
        let after = await f.conditioner.snapshot()
        #expect(after.interfaces.map(\.state) == [.up, .up])
    }
}
