import Foundation
import Testing
@testable import BenchCore

/// Every shipped profile under Profiles/ loads, and its figures are the ones its
/// comments cite (Network Link Conditioner, Chrome DevTools) or describe (our timelines).
struct ProfilePresetTests {
    /// Profiles/ of this package, found from this file's path (Tests/BenchCoreTests/…).
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Profiles")

    static let files: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted()
    }()

    static func load(_ file: String) throws -> Profile {
        try Profile.load(contentsOf: folder.appendingPathComponent(file).path)
    }

    static func kbps(_ value: Double) -> RateSpec { .constant(bitsPerSecond: value * 1000) }

    @Test func theShippedSetIsComplete() {
        let expected = [
            "3g", "edge", "very-bad-network", "100-percent-loss", "dsl", "slow-3g", "slow-4g", "fast-4g",
            "subway-commute", "wifi-to-cellular-handoff", "flaky-wifi", "airplane-mode-toggle", "evdo-driving",
        ]
        #expect(Set(Self.files) == Set(expected.map { $0 + ".yaml" }))
    }

    @Test(arguments: files)
    func loads(file: String) throws {
        let profile = try Self.load(file)
        #expect(profile.name + ".yaml" == file)
        #expect(!profile.description.isEmpty)
        #expect(profile.duration >= .seconds(60) && profile.duration <= .seconds(1200))
        #expect(profile.initial[.cellular]?.link.isExpensive == true)
        #expect(profile.initial[.wifi]?.link.isExpensive == false)
        #expect(!profile.summary.isEmpty)
    }

    /// (file, downlink rate, uplink rate, downlink delay, uplink delay, loss each way)
    static let toolPresets: [(String, RateSpec, RateSpec, Duration, Duration, LossModel)] = [
        ("3g.yaml", kbps(780), kbps(330), .milliseconds(100), .milliseconds(100), .none),
        ("edge.yaml", kbps(240), kbps(200), .milliseconds(400), .milliseconds(440), .none),
        ("very-bad-network.yaml", kbps(1000), kbps(1000), .milliseconds(500), .milliseconds(500),
         .bernoulli(probability: 0.1)),
        ("100-percent-loss.yaml", .unlimited, .unlimited, .zero, .zero, .bernoulli(probability: 1)),
        ("dsl.yaml", kbps(2000), kbps(256), .milliseconds(5), .milliseconds(5), .none),
        // Chrome's latency is a round trip: half on each direction.
        ("slow-3g.yaml", kbps(400), kbps(400), .milliseconds(1000), .milliseconds(1000), .none),
        ("slow-4g.yaml", kbps(1440), kbps(675), .microseconds(281_250), .microseconds(281_250), .none),
        ("fast-4g.yaml", kbps(8100), kbps(1350), .microseconds(82_500), .microseconds(82_500), .none),
    ]

    @Test func evdoDrivingFollowsTheShippedMahimahiTrace() throws {
        let profile = try Self.load("evdo-driving.yaml")
        #expect(profile.initial[.wifi]?.state == .down(.reset))
        guard case .trace(let trace)? = profile.initial[.cellular]?.link.downlink.rate else {
            Issue.record("cellular downlink should follow a trace"); return
        }
        // The traces README gives 521 kbit/s over 1062 s for this file.
        #expect(abs(trace.meanBitsPerSecond - 521_000) < 521_000 * 0.01)
        #expect(trace.periodNanoseconds / 1_000_000_000 == 1062)
    }

    @Test func toolPresetFiguresOnBothInterfaces() throws {
        for (file, down, up, downDelay, upDelay, loss) in Self.toolPresets {
            let profile = try Self.load(file)
            #expect(profile.timeline.isEmpty, "\(file)")
            for kind in InterfaceKind.allCases {
                let setup = try #require(profile.initial[kind], "\(file) \(kind)")
                #expect(setup.state == .up, "\(file) \(kind)")
                #expect(setup.link.downlink.rate == down, "\(file) \(kind)")
                #expect(setup.link.uplink.rate == up, "\(file) \(kind)")
                #expect(setup.link.downlink.delay == downDelay, "\(file) \(kind)")
                #expect(setup.link.uplink.delay == upDelay, "\(file) \(kind)")
                #expect(setup.link.downlink.loss == loss && setup.link.uplink.loss == loss, "\(file) \(kind)")
            }
        }
    }

    @Test func threeGIsExactly780kbitAnd100ms() throws {
        let cellular = try #require(try Self.load("3g.yaml").initial[.cellular])
        #expect(cellular.link.downlink.rate == .constant(bitsPerSecond: 780_000))
        #expect(cellular.link.downlink.delay == .milliseconds(100))
    }

    /// Stretches during which `kind` is down: (start, end, mode, policy of the phase that took it down).
    static func outages(_ profile: Profile, _ kind: InterfaceKind) -> [(Duration, Duration, DownMode, PathUpdatePolicy?)] {
        var result: [(Duration, Duration, DownMode, PathUpdatePolicy?)] = []
        var open: (Duration, DownMode, PathUpdatePolicy?)?
        for phase in profile.timeline {
            guard let state = phase.changes[kind]?.state else { continue }
            switch (state, open) {
            case (.down(let mode), nil): open = (phase.at, mode, phase.pathUpdate)
            case (.up, let current?):
                result.append((current.0, phase.at, current.1, current.2))
                open = nil
            default: break
            }
        }
        if let open { result.append((open.0, profile.duration, open.1, open.2)) }
        return result
    }

    @Test func subwayCommuteHasTunnelsOfTwentyToOneHundredTwentySeconds() throws {
        let profile = try Self.load("subway-commute.yaml")
        #expect(profile.initial[.wifi]?.state.isUp == false)
        #expect(profile.timeline.allSatisfy { $0.changes[.wifi] == nil })
        let tunnels = Self.outages(profile, .cellular)
        #expect(tunnels.count >= 3)
        for (start, end, _, _) in tunnels {
            #expect(end - start >= .seconds(20) && end - start <= .seconds(120))
        }
        #expect(Set(tunnels.map(\.2)) == [.blackhole, .reset])
        // A blackholed link still reports satisfied.
        #expect(tunnels.filter { $0.2 == .blackhole }.allSatisfy { $0.3 == .withheld })
        #expect(profile.initial[.cellular]?.link.downlink.rate == .constant(bitsPerSecond: 780_000))
        for phase in profile.timeline {
            guard case .constant(let bps)? = phase.changes[.cellular]?.link.downlink.rate else {
                Issue.record("cellular rate should stay constant")
                continue
            }
            #expect(bps >= 300_000 && bps <= 1_000_000)
        }
    }

    /// Its origin faults fall at stations, while cellular is up: the captive portal at
    /// station A, the 503s on segments at station B.
    @Test func subwayCommuteOriginFaultsComeAtStations() throws {
        let profile = try Self.load("subway-commute.yaml")
        #expect(profile.origin.map(\.fault) == [.captivePortal, .status(code: 503, retryAfter: .seconds(5))])
        for window in profile.origin {
            let phase = try #require(profile.timeline.last { $0.at <= window.at }, "no phase before \(window.at)")
            #expect(phase.label?.hasPrefix("station") == true, "\(window.label ?? "") falls after \(phase.label ?? "?")")
            let next = profile.timeline.first { $0.at > window.at }
            #expect(window.end <= next?.at ?? profile.duration, "\(window.label ?? "") runs into the next tunnel")
        }
    }

    @Test func handoffDegradesWifiThenDropsItWithALatePathUpdate() throws {
        let profile = try Self.load("wifi-to-cellular-handoff.yaml")
        let outages = Self.outages(profile, .wifi)
        let first = try #require(outages.first)
        guard case .delayed(let delay)? = first.3 else {
            Issue.record("the WiFi loss should be published late")
            return
        }
        #expect(delay > .zero)
        // Before it goes down, WiFi gets slower.
        let degraded = profile.setups(before: profile.timeline.firstIndex { $0.at == first.0 }!)[.wifi]!
        guard case .constant(let slow) = degraded.link.downlink.rate,
              case .constant(let fast)? = profile.initial[.wifi]?.link.downlink.rate else {
            Issue.record("constant WiFi rates expected")
            return
        }
        #expect(slow < fast / 10)
        #expect(degraded.link.downlink.loss != .none)
        // Cellular is up and expensive throughout.
        #expect(profile.timeline.allSatisfy { $0.changes[.cellular] == nil })
        #expect(profile.initial[.cellular]?.state == .up)
    }

    @Test func flakyWifiDropsForSecondsWithBurstyLoss() throws {
        let profile = try Self.load("flaky-wifi.yaml")
        let drops = Self.outages(profile, .wifi)
        #expect(drops.count >= 4)
        #expect(drops.allSatisfy { $0.1 - $0.0 >= .seconds(2) && $0.1 - $0.0 <= .seconds(10) })
        guard case .gilbertElliott? = profile.initial[.wifi]?.link.downlink.loss else {
            Issue.record("WiFi loss should be Gilbert-Elliott")
            return
        }
        let cellular = try #require(profile.initial[.cellular])
        #expect(cellular.state == .up && cellular.link.isExpensive)
        #expect(Self.outages(profile, .cellular).isEmpty)
    }

    @Test func airplaneModeTakesBothDownWithRefuseSeveralTimes() throws {
        let profile = try Self.load("airplane-mode-toggle.yaml")
        let toggles = profile.timeline.filter { phase in
            InterfaceKind.allCases.allSatisfy { phase.changes[$0]?.state == .down(.refuse) }
        }
        #expect(toggles.count >= 3)
        for kind in InterfaceKind.allCases {
            let outages = Self.outages(profile, kind)
            #expect(outages.count == toggles.count)
            #expect(outages.allSatisfy { $0.2 == .refuse && $0.1 < profile.duration })
        }
    }
}
