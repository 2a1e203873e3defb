import BenchCore
import EngineAgent
import Foundation
import ResilienceHarness
import Testing

/// End to end: a scenario that is not `profile-timeline` plays the profile's timeline
/// and its origin faults too, overlaid on the script's own steps, and every change of
/// the profile is in the trace marked as the profile's.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ProfileEverywhereTests {
    /// WiFi 8 Mbit/s, cellular 4 Mbit/s; early phases so that a 30 s scenario sees them.
    static let profile: Profile = {
        var cellular = InterfaceSetup(link: InterfaceLink(
            downlink: LinkDirectionParameters(rate: .constant(bitsPerSecond: 4_000_000), delay: .milliseconds(20)),
            uplink: LinkDirectionParameters(rate: .constant(bitsPerSecond: 2_000_000), delay: .milliseconds(20)),
            isExpensive: true))
        let wifi = InterfaceSetup(link: InterfaceLink(
            downlink: LinkDirectionParameters(rate: .constant(bitsPerSecond: 8_000_000), delay: .milliseconds(5)),
            uplink: LinkDirectionParameters(rate: .constant(bitsPerSecond: 4_000_000), delay: .milliseconds(5))))
        var slower = wifi
        slower.link.downlink.delay = .milliseconds(30)
        let cellularUp = cellular
        cellular.state = .down(.blackhole)
        return Profile(
            name: "early-events", duration: .seconds(120), initial: [.wifi: wifi, .cellular: cellularUp],
            timeline: [
                Phase(at: .seconds(2), label: "cellular tunnel", changes: [.cellular: cellular], pathUpdate: .withheld),
                Phase(at: .seconds(3), label: "wifi slower", changes: [.wifi: slower]),
                Phase(at: .seconds(6), label: "cellular back", changes: [.cellular: cellularUp]),
            ],
            origin: [
                // Long enough that the first download's requests fall in it however late a
                // loaded machine starts the app.
                OriginFaultWindow(
                    at: .seconds(1), duration: .seconds(15), label: "slow edge", path: "/videos/**/*.ts",
                    fault: .slowFirstByte(.milliseconds(200)))
            ])
    }()

    @Test func autoSuspendPlaysTheProfileUnderItsScript() async throws {
        let scenario = try ShippedScenarios.named("auto-suspend-on-disconnect")
        let options = HarnessOptions(
            profile: Self.profile, profilePath: "(test)", seed: 7, timeLimit: .seconds(150), app: try benchAgent())
        let run = await HarnessRunner.run([scenario], options: options)
        let result = try #require(run.report.scenarios.first)
        let summaries = result.verdicts.map { "\($0.property): \($0.outcome.rawValue): \($0.summary)" }
        #expect(result.error == nil, "the scenario did not run to its end: \(result.error ?? "")")
        #expect(result.verdicts.filter(\.failed).isEmpty, "verdicts:\n\(summaries.joined(separator: "\n"))")
        #expect(result.preconditions.filter { !$0.met }.isEmpty, "\(result.preconditions)")

        let conditioner = run.trace.compactMap { entry -> ConditionerEvent.Kind? in
            if case .conditioner(let kind) = entry.event { kind } else { nil }
        }
        let harness = run.trace.compactMap { entry -> HarnessEvent? in
            if case .harness(let event) = entry.event { event } else { nil }
        }
        // Every phase played, with its label.
        let phases = conditioner.compactMap { kind -> String? in
            if case .phaseApplied(_, let label, _) = kind { label } else { nil }
        }
        #expect(phases == ["cellular tunnel", "wifi slower", "cellular back"])
        // The script never brings cellular up: the profile's tunnel and return are held off…
        #expect(conditioner.contains(.profileStateHeld(interface: .cellular, state: .down(.blackhole), phase: 0)))
        #expect(conditioner.contains(.profileStateHeld(interface: .cellular, state: .up, phase: 2)))
        #expect(!conditioner.contains(.interfaceUp(interface: .cellular)))
        // …while the WiFi link change applies under the script's own outages.
        #expect(conditioner.contains { if case .linkChanged(.wifi, _) = $0 { true } else { false } })
        #expect(harness.contains(.interfaceSet(.wifi, up: false, mode: .blackhole)))
        // The origin window opened and closed, and requests in it were answered under its rule.
        #expect(harness.contains(.originFaultBegan(
            index: 0, label: "slow edge", path: "/videos/**/*.ts", fault: "first byte 200ms late", rule: "profile-origin-0")))
        #expect(harness.contains(.originFaultEnded(index: 0, label: "slow edge", rule: "profile-origin-0")))
        let faulted = run.trace.filter { entry in
            if case .origin(let record) = entry.event { record.faultRuleID == "profile-origin-0" } else { false }
        }
        #expect(!faulted.isEmpty, "no request was answered under the profile's origin fault")
    }
}
