import BenchCore
import Testing
@testable import ClientComparison

/// The fault modes' scripts, driven by hand: time and received bytes go in, actions come out.
@Suite struct FaultScriptTests {
    let second: UInt64 = 1_000_000_000

    @Test func anOutageStartsAtItsFractionAndEndsAfterItsWindow() {
        var script = FaultScript(.outage(at: 0.3, mode: .reset, interface: .wifi, seconds: 10))
        // 29% of the content: nothing yet.
        #expect(script.advance(now: 1 * second, received: 290, content: 1000) == [])
        // 30%: down, once.
        #expect(script.advance(now: 2 * second, received: 300, content: 1000) == [.takeDown(.wifi, .reset)])
        #expect(script.isInOutage)
        #expect(script.advance(now: 3 * second, received: 900, content: 1000) == [])
        // 10 s after it went down (at 2 s): up again, and nothing more.
        #expect(script.advance(now: 11 * second, received: 900, content: 1000) == [])
        #expect(script.advance(now: 12 * second, received: 900, content: 1000) == [.bringUp(.wifi)])
        #expect(script.isDone)
        #expect(script.advance(now: 30 * second, received: 1000, content: 1000) == [])
    }

    @Test func aClientThatExitsDuringTheOutageGetsTheInterfaceBack() {
        var script = FaultScript(.outage(at: 0.3, mode: .blackhole, interface: .wifi, seconds: 10))
        #expect(script.advance(now: 0, received: 500, content: 1000) == [.takeDown(.wifi, .blackhole)])
        #expect(script.finish() == [.bringUp(.wifi)])
        #expect(script.finish() == [])
    }

    @Test func theKillComesOnceAtItsFraction() {
        var script = FaultScript(.kill(at: 0.5))
        #expect(script.advance(now: 0, received: 499, content: 1000) == [])
        #expect(script.advance(now: 1, received: 500, content: 1000) == [.killAndRerun])
        #expect(script.advance(now: 2, received: 1500, content: 1000) == [])
        #expect(script.finish() == [])
    }

    @Test func noContentMeansNoTrigger() {
        var script = FaultScript(.kill(at: 0.5))
        #expect(script.advance(now: 0, received: 100, content: 0) == [])
        var empty = FaultScript(nil)
        #expect(empty.isDone)
        #expect(empty.advance(now: 0, received: 1, content: 1) == [])
    }

    @Test func eachModeSetsUpTheLinksItsSummarySays() {
        let wifi = InterfaceLink(downlink: LinkDirectionParameters(rate: .constant(bitsPerSecond: 8_000_000), delay: .milliseconds(20)))
        let cellular = InterfaceLink(isExpensive: true)
        let base = ComparisonLinks(wifi: wifi, cellular: cellular)
        let settings = FaultSettings()
        #expect(FaultMode.clean.initialSetup(base: base, settings: settings)[.wifi]?.link == InterfaceLink())
        #expect(FaultMode.bandwidthCap.initialSetup(base: base, settings: settings)[.wifi]?.link.downlink.rate
            == .constant(bitsPerSecond: 2_000_000))
        let latency = FaultMode.highLatency.initialSetup(base: base, settings: settings)[.wifi]?.link
        #expect(latency?.downlink.delay == .milliseconds(320))
        #expect(latency?.uplink.delay == .milliseconds(300))
        #expect(FaultMode.randomResets.initialSetup(base: base, settings: settings)[.wifi]?.link.faults.resetProbabilityPerMB == 0.5)
        let cellularOnly = FaultMode.cellularOnly.initialSetup(base: base, settings: settings)
        #expect(cellularOnly[.wifi]?.state == .down(.refuse))
        #expect(cellularOnly[.cellular]?.state == .up)
        #expect(FaultMode.cellularOnly.clientInterface == .cellular)
        for mode in FaultMode.allCases where mode != .cellularOnly {
            #expect(mode.clientInterface == .wifi)
            #expect(mode.initialSetup(base: base, settings: settings)[.wifi]?.state == .up)
        }
        #expect(FaultMode.resetWindow.script(settings: settings).step == .outage(at: 0.3, mode: .reset, interface: .wifi, seconds: 10))
        #expect(FaultMode.killRerun.script(settings: settings).step == .kill(at: 0.5))
        #expect(FaultMode.clean.script(settings: settings).step == nil)
    }

    @Test func unshapedProfileLinksGetTheFixedRate() {
        let links = ComparisonLinks(profile: Profile(name: "plain"))
        #expect(links.wifi.downlink.rate == .constant(bitsPerSecond: ComparisonLinks.unshapedRate))
        #expect(links.wifiDownlinkBitsPerSecond == ComparisonLinks.unshapedRate)
        #expect(links.cellular.isExpensive)
    }

    @Test func theVideoIsSizedToTheLink() {
        // 8 Mbit/s × 12 s over 36 s of video: 2.667 Mbit/s, one variant, 720p rung.
        let video = ComparisonContent.video(rate: 8_000_000, targetSeconds: 12, durationSeconds: 36)
        #expect(video.variants.count == 1)
        #expect(video.variants[0].bandwidth == 2_666_667)
        #expect(video.variants[0].resolution?.height == 720)
        #expect(video.duration == 36)
        // A slow link is floored at 100 kbit/s and gets the smallest rung.
        let slow = ComparisonContent.video(rate: 50_000, targetSeconds: 12, durationSeconds: 36)
        #expect(slow.variants[0].bandwidth == 100_000)
        #expect(slow.variants[0].resolution?.height == 234)
    }
}
