import BenchCore
import FixtureOrigin
import Foundation
import AppProtocol
import ResilienceHarness
import Testing

/// The license misbehaviours at the agent level, beside the honest agent: the bad app
/// must really do what `license-before-background` is meant to catch.
extension AgentProcessTests {
    /// The license endpoint answers 2 s late (the server issues at once).
    static func slowLicense(_ configuration: inout OriginConfiguration) {
        configuration.faultRules = try! FaultRuleSet(rules: [
            FaultRule(path: "/license", fault: .addedTimeToFirstByte(.seconds(2)))
        ])
    }

    /// Where in `log`'s events `download`'s first `licenseAcquired` and first
    /// `segmentStored` are (nil when absent).
    static func order(_ log: AgentEventLog, _ download: String) -> (license: Int?, segment: Int?) {
        let events = log.events
        let license = events.firstIndex { if case .licenseAcquired(download, _) = $0 { true } else { false } }
        let segment = events.firstIndex { if case .segmentStored(download, _, _, _, _) = $0 { true } else { false } }
        return (license, segment)
    }

    @Test func fakeLicenseClaimsALicenseItDoesNotHave() async throws {
        try await withAgentFixture { fixture in
            let (agent, log) = try await fixture.launch(["--misbehave", "fake-license"])
            // No network at all: the engine cannot have any license.
            let token = try await agent.requestToken(try await fixture.request("protected"))
            #expect(await log.wait { _ in Self.order(log, token).license != nil }, "\(log.events)")
            #expect(try await agent.send(.prepareForBackground) == .unfinished([:]))
            let inspection = try await agent.inspect(download: token)
            #expect(inspection.known && inspection.licenseExpiration == nil && !inspection.playable)
            // A clear video gets no such claim.
            let clear = try await agent.requestToken(try await fixture.request("clear"))
            _ = try await agent.inspect(download: clear)
            #expect(Self.order(log, clear).license == nil)
            #expect(await agent.shutdown(timeout: .seconds(30)) == 0)
        }
    }

    @Test func anHonestAgentStoresNoSegmentBeforeItsSlowLicense() async throws {
        try await withAgentFixture(Self.slowLicense) { fixture in
            let (agent, log) = try await fixture.launch()
            _ = try await agent.send(.setPath(fixture.wifi))
            let token = try await agent.requestToken(try await fixture.request("protected"))
            #expect(await log.wait { _ in log.isFinished(token) }, "\(log.events)")
            let order = Self.order(log, token)
            let license = try #require(order.license, "no licenseAcquired: \(log.events)")
            let segment = try #require(order.segment, "no segment stored: \(log.events)")
            #expect(license < segment)
            #expect(await agent.shutdown(timeout: .seconds(30)) == 0)
        }
    }

    @Test func segmentsBeforeLicenseStoresSegmentsWhileTheLicenseIsOnItsWay() async throws {
        try await withAgentFixture(Self.slowLicense) { fixture in
            let (agent, log) = try await fixture.launch(["--misbehave", "segments-before-license"])
            _ = try await agent.send(.setPath(fixture.wifi))
            let token = try await agent.requestToken(try await fixture.request("protected"))
            #expect(await log.wait { _ in Self.order(log, token).license != nil }, "\(log.events)")
            let order = Self.order(log, token)
            let license = try #require(order.license)
            let segment = try #require(order.segment, "no segment stored before the license: \(log.events)")
            #expect(segment < license)
            #expect(await agent.shutdown(timeout: .seconds(30)) == 0)
        }
    }
}
