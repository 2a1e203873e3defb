import Foundation
import Testing
@testable import BenchCore

/// Profile YAML: defaults, patch resolution across phases, path update policies,
/// traces, and one test per validation error (file, key path and hint in the message).
struct ProfileTests {
    static func parse(_ yaml: String) throws -> Profile {
        try Profile.parse(yaml: yaml, sourcePath: "test.yaml")
    }

    static func fixture(_ name: String) throws -> String {
        let base = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        return base.appendingPathComponent("profiles").appendingPathComponent(name).path
    }

    // MARK: - Reading

    @Test func minimalProfileGetsDefaults() throws {
        let profile = try Self.parse("name: tiny\nduration: 1m\n")
        #expect(profile.name == "tiny")
        #expect(profile.description == "")
        #expect(profile.seed == 1)
        #expect(profile.duration == .seconds(60))
        #expect(profile.pathUpdates == .immediate)
        #expect(profile.timeline.isEmpty)
        #expect(profile.sourcePath == "test.yaml")
        #expect(profile.initial[.wifi] == InterfaceSetup.defaultSetup(for: .wifi))
        #expect(profile.initial[.cellular]?.link.isExpensive == true)
        #expect(profile.initial[.wifi]?.link.isExpensive == false)
    }

    @Test func everyInterfaceField() throws {
        let profile = try Self.parse("""
            name: full
            description: all the knobs
            seed: 42
            duration: 10m
            interfaces:
              wifi:
                state: {down: blackhole}
                expensive: true
                constrained: true
              cellular:
                expensive: false
                downlink: {rate: 780kbit/s, delay: 100ms, jitter: 10ms, loss: 1%, queue: 256KiB}
                uplink:   {rate: 330kbit/s, delay: 100ms, loss: {gilbert_elliott: {p: 0.01, r: 0.3, good: 0, bad: 0.5}}}
                faults: {reset_after: 5MB, reset_per_mb: 0.01, close_after: 10MB, slow_connect: 300ms}
            """)
        #expect(profile.seed == 42)
        let wifi = try #require(profile.initial[.wifi])
        #expect(wifi.state == .down(.blackhole))
        #expect(wifi.link.isExpensive && wifi.link.isConstrained)
        let cell = try #require(profile.initial[.cellular])
        #expect(cell.link.isExpensive == false)
        #expect(cell.link.downlink == LinkDirectionParameters(
            rate: .constant(bitsPerSecond: 780_000), delay: .milliseconds(100), jitter: .milliseconds(10),
            loss: .bernoulli(probability: 0.01), queueLimitBytes: 262_144
        ))
        #expect(cell.link.uplink.loss == .gilbertElliott(goodToBad: 0.01, badToGood: 0.3, lossInGood: 0, lossInBad: 0.5))
        #expect(cell.link.faults == ConnectionFaults(
            resetAfterBytes: 5_000_000, resetProbabilityPerMB: 0.01, closeAfterBytes: 10_000_000,
            slowConnectExtra: .milliseconds(300)
        ))
    }

    @Test func latencyIsARoundTripSplitInHalf() throws {
        let profile = try Self.parse("name: l\nduration: 1m\ninterfaces: {wifi: {latency: 562.5ms}}\n")
        let link = try #require(profile.initial[.wifi]?.link)
        #expect(link.downlink.delay == .microseconds(281_250))
        #expect(link.uplink.delay == .microseconds(281_250))
        #expect(link.roundTrip == .microseconds(562_500))
    }

    @Test func lossSpellings() throws {
        func loss(_ text: String) throws -> LossModel {
            try Self.parse("name: l\nduration: 1m\ninterfaces: {wifi: {downlink: {loss: \(text)}}}\n")
                .initial[.wifi]!.link.downlink.loss
        }
        #expect(try loss("1%") == .bernoulli(probability: 0.01))
        #expect(try loss("0.01") == .bernoulli(probability: 0.01))
        #expect(try loss("{bernoulli: 2%}") == .bernoulli(probability: 0.02))
        #expect(try loss("0") == LossModel.none)
        #expect(try loss("none") == LossModel.none)
        #expect(try loss("{gilbert_elliott: {p: 1%, r: 30%}}") == .gilbertElliott(goodToBad: 0.01, badToGood: 0.3, lossInGood: 0, lossInBad: 1))
    }

    @Test func anchorsAndMergeKeys() throws {
        let profile = try Self.parse("""
            name: anchors
            duration: 1m
            interfaces:
              wifi: &link
                downlink: {rate: 1Mbit/s, delay: 20ms}
              cellular:
                <<: *link
                uplink: {rate: 100kbit/s}
            """)
        let wifi = try #require(profile.initial[.wifi]), cell = try #require(profile.initial[.cellular])
        #expect(cell.link.downlink == wifi.link.downlink)
        #expect(cell.link.uplink.rate == .constant(bitsPerSecond: 100_000))
        #expect(cell.link.isExpensive)
    }

    // MARK: - Patches across phases

    @Test func phasesPatchTheSetupJustBeforeThem() throws {
        let profile = try Self.parse("""
            name: patches
            duration: 5m
            interfaces:
              cellular:
                downlink: {rate: 780kbit/s, delay: 100ms, loss: 1%}
                uplink: {rate: 330kbit/s, delay: 100ms}
                faults: {reset_after: 5MB}
            timeline:
              - at: 30s
                label: tunnel
                cellular: {state: {down: blackhole}}
              - at: 1m
                cellular: {state: up, downlink: {rate: 1Mbit/s}, faults: {reset_after: none, close_after: 1MB}}
              - at: 2m
                wifi: down
              - at: 3m
                cellular: {downlink: {loss: none}}
            """)
        #expect(profile.timeline.map(\.at) == [.seconds(30), .seconds(60), .seconds(120), .seconds(180)])
        #expect(profile.timeline[0].label == "tunnel")

        // Phase 0: only the state changes; the link is the initial one.
        let tunnel = try #require(profile.timeline[0].changes[.cellular])
        #expect(tunnel.state == .down(.blackhole))
        #expect(tunnel.link == profile.initial[.cellular]!.link)
        #expect(profile.timeline[0].changes[.wifi] == nil)

        // Phase 1: up again, new rate; delay, loss and uplink carried over; faults patched.
        let out = try #require(profile.timeline[1].changes[.cellular])
        #expect(out.state == .up)
        #expect(out.link.downlink.rate == .constant(bitsPerSecond: 1_000_000))
        #expect(out.link.downlink.delay == .milliseconds(100))
        #expect(out.link.downlink.loss == .bernoulli(probability: 0.01))
        #expect(out.link.uplink == profile.initial[.cellular]!.link.uplink)
        #expect(out.link.faults == ConnectionFaults(closeAfterBytes: 1_000_000))
        #expect(out.link.isExpensive)

        // Phase 2 names only wifi; phase 3 starts from phase 1's cellular.
        #expect(profile.timeline[2].changes.keys.sorted() == [.wifi])
        #expect(profile.timeline[2].changes[.wifi]?.state == .down(.reset))
        let last = try #require(profile.timeline[3].changes[.cellular])
        #expect(last.link.downlink.rate == .constant(bitsPerSecond: 1_000_000))
        #expect(last.link.downlink.loss == LossModel.none)

        #expect(profile.setups(before: 4)[.wifi]?.state == .down(.reset))
        #expect(profile.setups(before: 1)[.cellular] == tunnel)
    }

    @Test func latencyInAPhaseReplacesBothDelays() throws {
        let profile = try Self.parse("""
            name: p
            duration: 1m
            interfaces: {wifi: {downlink: {delay: 10ms}, uplink: {delay: 30ms}}}
            timeline: [{at: 10s, wifi: {latency: 1s}}]
            """)
        let wifi = try #require(profile.timeline[0].changes[.wifi])
        #expect(wifi.link.downlink.delay == .milliseconds(500))
        #expect(wifi.link.uplink.delay == .milliseconds(500))
    }

    // MARK: - Path update policies

    @Test func pathUpdatePolicies() throws {
        let yaml = """
            name: p
            duration: 1m
            path_updates: {delay: 2s}
            timeline:
              - {at: 10s, wifi: down, path_update: withheld}
              - {at: 20s, wifi: up, path_update: immediate}
              - {at: 30s, wifi: down, path_update: {delay: 500ms}}
              - {at: 40s, wifi: up}
            """
        let profile = try Self.parse(yaml)
        #expect(profile.pathUpdates == .delayed(.seconds(2)))
        #expect(profile.timeline.map(\.pathUpdate) == [.withheld, .immediate, .delayed(.milliseconds(500)), nil])
        #expect(try Self.parse("name: p\nduration: 1m\npath_updates: withheld\n").pathUpdates == .withheld)
        #expect(try Self.parse("name: p\nduration: 1m\npath_updates: immediate\n").pathUpdates == .immediate)
    }

    // MARK: - Traces

    @Test func traceResolvedRelativeToTheProfile() throws {
        // Needs RateTrace.load (written concurrently with this file).
        let profile = try Profile.load(contentsOf: Self.fixture("with-trace.yaml"))
        guard case .trace(let trace)? = profile.initial[.cellular]?.link.downlink.rate else {
            Issue.record("expected a trace rate")
            return
        }
        #expect(trace.name.hasSuffix("steady.down"))
        #expect(abs(trace.meanBitsPerSecond - 12_000_000) < 1)
        #expect(trace.loops)
        #expect(profile.initial[.cellular]?.link.downlink.delay == .milliseconds(50))
        #expect(profile.timeline[0].changes[.cellular]?.link.downlink.rate == .constant(bitsPerSecond: 1_000_000))
        guard case .trace(let again)? = profile.timeline[1].changes[.cellular]?.link.downlink.rate else {
            Issue.record("expected a trace rate in timeline[1]")
            return
        }
        #expect(!again.loops)
    }

    @Test func traceErrorKeepsTheTraceFileAndLine() throws {
        let path = try Self.fixture("bad-trace.yaml")
        #expect {
            try Profile.load(contentsOf: path)
        } throws: { error in
            guard let error = error as? ProfileError else { return false }
            return error.kind == .traceFailed
                && error.traceError?.line == 3
                && error.description.contains("bad-trace.yaml:7")
                && error.description.contains("interfaces.wifi.downlink.rate.trace")
                && error.description.contains("broken.down:3")
        }
    }

    @Test func missingTraceFile() {
        #expect {
            try Self.parse("name: t\nduration: 1m\ninterfaces: {wifi: {downlink: {rate: {trace: no/such.down}}}}\n")
        } throws: { error in
            (error as? ProfileError)?.kind == .traceFailed
                && "\(error)".contains("such.down")
        }
    }

    // MARK: - Summary

    @Test func summaryNamesPhasesAndChanges() throws {
        let profile = try Self.parse("""
            name: s
            duration: 2m
            interfaces: {cellular: {downlink: {rate: 780kbit/s}}}
            timeline:
              - {at: 30s, label: tunnel 1, cellular: {state: {down: blackhole}}, path_update: withheld}
              - {at: 1m, cellular: {state: up, downlink: {rate: 1Mbit/s}}}
            """)
        let summary = profile.summary
        #expect(summary.contains("780kbit/s"))
        #expect(summary.contains("30s  [tunnel 1] cellular: down(blackhole); path update withheld"))
        #expect(summary.contains("1m   cellular: up, downlink rate 1Mbit/s"))
    }
}
