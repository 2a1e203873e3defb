import BenchCore
import FixtureOrigin
import Foundation
import OfflineDownloads
import ResilienceHarness
import Testing

/// Each `--misbehave` at the agent level, beside the honest agent where the contrast
/// is cheap: the bad app must really do what the harness is meant to catch.
extension AgentProcessTests {
    @Test func anHonestAgentKeepsADownloadOffCellular() async throws {
        try await withAgentFixture { fixture in
            let (agent, log) = try fixture.launch()
            _ = try await agent.send(.setPath(fixture.cellularOnly))
            let token = try await agent.requestToken(try await fixture.request("clear", allowsCellular: false))
            #expect(await log.wait { _ in log.states(of: token).contains(.suspended(.cellularNotAllowed)) }, "\(log.events)")
            #expect(log.stored(token).isEmpty)
            #expect(await agent.shutdown(timeout: .seconds(30)) == 0)
        }
    }

    @Test func ignoreCellularPolicyDownloadsOverCellular() async throws {
        try await withAgentFixture { fixture in
            let (agent, log) = try fixture.launch(["--misbehave", "ignore-cellular-policy"])
            _ = try await agent.send(.setPath(fixture.cellularOnly))
            let token = try await agent.requestToken(try await fixture.request("clear", allowsCellular: false))
            #expect(await log.wait { _ in log.isFinished(token) }, "\(log.events)")
            #expect(!log.states(of: token).contains(.suspended(.cellularNotAllowed)))
            #expect(await agent.shutdown(timeout: .seconds(30)) == 0)
        }
    }

    @Test func failOnOutageReportsFailedAndStopsTheDownload() async throws {
        try await withAgentFixture(Self.holdLargeSegments) { fixture in
            let (agent, log) = try fixture.launch(["--misbehave", "fail-on-outage"])
            _ = try await agent.send(.setPath(fixture.wifi))
            let token = try await agent.requestToken(try await fixture.request("large"))
            #expect(await log.wait { _ in log.stored(token).count >= 3 })
            _ = try await agent.send(.setPath(NetworkPath(interfaces: [])))
            #expect(await log.wait { _ in log.states(of: token).last == .failed }, "\(log.events)")
            #expect(log.events.contains(.stateChanged(download: token, from: .downloading, to: .failed)))
            // The engine was paused behind the app's back; nothing more is told.
            #expect(try await agent.inspect(token).state == .suspended(.user))
            let told = log.states(of: token)
            _ = try await agent.send(.setPath(fixture.wifi))
            try await Task.sleep(for: .milliseconds(500))
            #expect(log.states(of: token) == told)
            #expect(!told.contains(.suspended(.network)))
            #expect(await agent.shutdown(timeout: .seconds(30)) == 0)
        }
    }

    @Test func refetchAfterCrashStoresTheSegmentsAgain() async throws {
        try await withAgentFixture(Self.holdLargeSegments) { fixture in
            let run = try await Self.crashMidDownload(fixture, relaunchOptions: ["--misbehave", "refetch-after-crash"])
            #expect(!run.firstRun.isEmpty, "nothing was stored before the crash")
            #expect(run.firstRun.isSubset(of: run.secondRun), "\(run.firstRun) then \(run.secondRun)")
            #expect(run.secondRun == Set(0..<20))
            #expect(run.inspection.playable)
        }
    }

    @Test func anHonestAgentSaysWhichLicensesAreMissing() async throws {
        try await withAgentFixture { fixture in
            let (agent, _) = try fixture.launch()
            let token = try await agent.requestToken(try await fixture.request("protected"))
            // No network: the license cannot be had, and prepareForBackground says so.
            guard case .unfinished(let missing) = try await agent.send(.prepareForBackground) else {
                throw UnexpectedReply(command: "prepareForBackground")
            }
            #expect(missing.keys.contains(token), "\(missing)")
            #expect(await agent.shutdown(timeout: .seconds(30)) == 0)
        }
    }

    @Test func backgroundBeforeLicenseAnswersAtOnceWithoutTheLicense() async throws {
        try await withAgentFixture { fixture in
            let (agent, _) = try fixture.launch(["--misbehave", "background-before-license"])
            let token = try await agent.requestToken(try await fixture.request("protected"))
            #expect(try await agent.send(.prepareForBackground) == .unfinished([:]))
            let inspection = try await agent.inspect(token)
            #expect(inspection.known && inspection.licenseExpiration == nil && !inspection.playable)
            #expect(await agent.shutdown(timeout: .seconds(30)) == 0)
        }
    }
}
