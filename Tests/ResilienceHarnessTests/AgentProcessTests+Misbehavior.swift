import BenchCore
import FixtureOrigin
import Foundation
import AppProtocol
import ResilienceHarness
import TestSupport
import Testing

/// Each `--misbehave` at the agent level, beside the honest agent where the contrast
/// is cheap: the bad app must really do what the harness is meant to catch.
extension AgentProcessTests {
    @Test func anHonestAgentKeepsADownloadOffCellular() async throws {
        try await withAgentFixture { fixture in
            let (agent, log) = try await fixture.launch()
            _ = try await agent.send(.setPath(fixture.cellularOnly))
            let token = try await agent.requestToken(try await fixture.request("clear", allowsCellular: false))
            #expect(await log.wait { _ in log.states(of: token).contains(.suspended(.cellularNotAllowed)) }, "\(log.events)")
            #expect(log.stored(token).isEmpty)
            #expect(await agent.shutdown(timeout: .seconds(30)) == 0)
        }
    }

    @Test func ignoreCellularPolicyDownloadsOverCellular() async throws {
        try await withAgentFixture { fixture in
            let (agent, log) = try await fixture.launch(["--misbehave", "ignore-cellular-policy"])
            _ = try await agent.send(.setPath(fixture.cellularOnly))
            let token = try await agent.requestToken(try await fixture.request("clear", allowsCellular: false))
            #expect(await log.wait { _ in log.isFinished(token) }, "\(log.events)")
            #expect(!log.states(of: token).contains(.suspended(.cellularNotAllowed)))
            #expect(await agent.shutdown(timeout: .seconds(30)) == 0)
        }
    }

    @Test func failOnOutageReportsFailedAndStopsTheDownload() async throws {
        try await withAgentFixture(Self.holdLargeSegments) { fixture in
            let (agent, log) = try await fixture.launch(["--misbehave", "fail-on-outage"])
            _ = try await agent.send(.setPath(fixture.wifi))
            let token = try await agent.requestToken(try await fixture.request("large"))
            #expect(await log.wait { _ in log.stored(token).count >= 3 })
            _ = try await agent.send(.setPath(NetworkPath(interfaces: [])))
            #expect(await log.wait { _ in log.states(of: token).last == .failed }, "\(log.events)")
            #expect(log.events.contains(.stateChanged(download: token, from: .downloading, to: .failed)))
            // The engine was paused behind the app's back; nothing more is told.
            #expect(try await agent.inspect(download: token).state == .suspended(.user))
            let told = log.states(of: token)
            _ = try await agent.send(.setPath(fixture.wifi))
            // WiFi is back: nothing more is told of it, and it stays paused. The window ends
            // with an event of the test's own: a second download, requested now, finishes
            // (so the engine has acted on the path by then).
            let second = try await agent.requestToken(try await fixture.request("clear"))
            #expect(await log.wait { _ in log.isFinished(second) }, "the second download never finished: \(log.events)")
            #expect(log.states(of: token) == told)
            #expect(!told.contains(.suspended(.network)))
            #expect(try await agent.inspect(download: token).state == .suspended(.user))
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
            let (agent, _) = try await fixture.launch()
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
            let (agent, _) = try await fixture.launch(["--misbehave", "background-before-license"])
            let token = try await agent.requestToken(try await fixture.request("protected"))
            #expect(try await agent.send(.prepareForBackground) == .unfinished([:]))
            let inspection = try await agent.inspect(download: token)
            #expect(inspection.known && inspection.licenseExpiration == nil && !inspection.playable)
            #expect(await agent.shutdown(timeout: .seconds(30)) == 0)
        }
    }

    /// `large`'s segments from 10 on send 1000 bytes, then stall for good.
    static func stallLargeSegments(_ configuration: inout OriginConfiguration) {
        configuration.faultRules = try! FaultRuleSet(rules: [
            FaultRule(path: "/videos/large/400k/seg1?.ts", fault: .stallBody(afterBytes: 1000, duration: nil))
        ])
    }

    /// Downloads `large` until its stalled segments hold 1000 bytes each in their
    /// `.part`, SIGKILLs the agent, lifts the stall and relaunches it after a crash
    /// (with `relaunchOptions`) until `large` is finished. Returns the partial segments
    /// the relaunched agent reported, and the `Range` of the first request for each path
    /// after the relaunch (`"none"` without one).
    static func crashWithPartials(
        _ fixture: AgentFixture, relaunchOptions: [String]
    ) async throws -> (partials: [AppPartialSegment], firstRanges: [String: String]) {
        let (first, log1) = try await fixture.launch()
        _ = try await first.send(.setPath(fixture.wifi))
        let large = try await first.requestToken(try await fixture.request("large"))
        #expect(await log1.wait { _ in log1.stored(large).count >= 10 }, "\(log1.stored(large))")
        // Killed once a stalled segment's first 1000 bytes are in its `.part`, and no `.part`
        // holds only some of them.
        let parts = { () -> [Int] in
            let files = FileManager.default.enumerator(atPath: fixture.storage)?.allObjects as? [String] ?? []
            return files.filter { $0.hasSuffix(".ts.part") }.map { name in
                (try? FileManager.default.attributesOfItem(atPath: fixture.storage + "/" + name)[.size] as? Int) ?? 0
            }.filter { $0 > 0 }
        }
        var sizes: [Int] = []
        await eventually("the stalled segments' `.part` files holding 1000 bytes each (sizes: \(sizes))") {
            sizes = parts()
            return !sizes.isEmpty && sizes.allSatisfy { $0 == 1000 }
        }
        try await first.kill()
        fixture.server.setFaultRules(try FaultRuleSet(rules: []))
        // The origin stamps requests with CLOCK_MONOTONIC; the killed agent's stalled ones
        // are logged when their connections close, whenever that is: judge by their start.
        let relaunch = MonotonicClock().nowNanoseconds

        let (second, log2) = try await fixture.launch(after: .crash, relaunchOptions)
        #expect(await log2.wait { _ in log2.launched(after: .crash) })
        _ = try await second.send(.setPath(fixture.wifi))
        #expect(await log2.wait { _ in log2.isFinished(large) }, "\(log2.events)")
        #expect(await second.shutdown(timeout: .seconds(30)) == 0)
        let partials = log2.events.flatMap { event -> [AppPartialSegment] in
            if case .partialSegmentsFound(let found) = event { found } else { [] }
        }
        var firstRanges: [String: String] = [:]
        let after = fixture.server.requestLog.filter { $0.startedAtNanoseconds > relaunch }
        for record in after.sorted(by: { $0.startedAtNanoseconds < $1.startedAtNanoseconds })
        where firstRanges[record.path] == nil {
            firstRanges[record.path] = record.range ?? "none"
        }
        return (partials, firstRanges)
    }

    @Test func anHonestAgentReportsItsPartialSegmentsAndResumesThemByRange() async throws {
        try await withAgentFixture(Self.stallLargeSegments) { fixture in
            let run = try await Self.crashWithPartials(fixture, relaunchOptions: [])
            #expect(!run.partials.isEmpty, "no partial segment was reported after the crash")
            for partial in run.partials {
                #expect(partial.bytes == 1000 && partial.path.hasPrefix("/videos/large/400k/seg1"), "\(partial)")
                #expect(run.firstRanges[partial.path] == "bytes=1000-", "\(partial.path): \(run.firstRanges)")
            }
        }
    }

    @Test func restartPartialSegmentsFetchesThemFromByteZero() async throws {
        try await withAgentFixture(Self.stallLargeSegments) { fixture in
            let run = try await Self.crashWithPartials(fixture, relaunchOptions: ["--misbehave", "restart-partial-segments"])
            #expect(!run.partials.isEmpty, "no partial segment was reported after the crash")
            for partial in run.partials {
                #expect(run.firstRanges[partial.path] == "none", "\(partial.path): \(run.firstRanges)")
            }
        }
    }
}
