import BenchCore
import FixtureOrigin
import Foundation
import AppProtocol
@testable import ResilienceHarness
import TestSupport
import Testing

/// `bench agent` in real child processes, driven through `AgentProcess` against a real
/// origin on loopback (the WiFi interface's endpoint is the origin itself).
@Suite(.serialized, .timeLimit(.minutes(5))) struct AgentProcessTests {
    @Test func downloadsInspectsAndDeletesAVideo() async throws {
        try await withAgentFixture { fixture in
            let (agent, log) = try await fixture.launch()
            #expect(await log.wait { _ in log.launched(after: .clean) })
            _ = try await agent.send(.setPath(fixture.wifi))
            let token = try await agent.requestToken(try await fixture.request("clear"))
            #expect(await log.wait { _ in log.isFinished(token) }, "\(log.events)")
            #expect(log.states(of: token).last == .downloaded)
            #expect(log.states(of: token).contains(.downloading))
            let stored = log.stored(token)
            #expect(!stored.isEmpty && stored.allSatisfy { $0.path.hasPrefix("/videos/clear/") }, "\(stored)")

            // What the agent finds on disk is what the origin served, byte for byte.
            let inspection = try await agent.inspect(download: token)
            #expect(inspection.known && inspection.state == .downloaded && (inspection.files ?? 0) > stored.count)
            #expect(inspection.playable && inspection.unplayableReason == nil)
            #expect(inspection.packageComplete == true)
            #expect(inspection.package?.hasSuffix("/master.m3u8") == true, "\(String(describing: inspection.package))")
            let hashes = inspection.segmentHashes ?? [:]
            #expect(Set(hashes.keys) == Set(stored.map(\.path)))
            let manifest = try fixture.server.store.hashManifest(videoIDs: ["clear"])
            for (path, hash) in hashes {
                #expect(hash == manifest.entries[path]?.sha256, "\(path)")
            }

            // Deleted: nothing left, and the engine forgot it.
            #expect(try await agent.send(.delete(download: token)) == .done)
            let gone = try await agent.inspect(download: token)
            #expect(!gone.known && gone.files == 0 && gone.state == nil && !gone.playable && gone.segmentHashes == [:])
            #expect(gone.package == nil)
            await #expect(throws: AgentProcessError.self) { try await agent.send(.pause(download: token)) }

            #expect(await agent.shutdown(timeout: .seconds(30)) == 0)
            #expect(!agent.isRunning && agent.peakRSSBytes > 1 << 20)
        }
    }

    /// The engine refuses a line that is not a command (its reply carries id -1); the
    /// harness never writes one, so it reads that reply, to an id it never sent, as the
    /// app breaking the protocol: the app is killed and the next send fails saying so.
    @Test func aReplyToALineTheHarnessNeverSentIsAProtocolError() async throws {
        try await withAgentFixture { fixture in
            let (agent, _) = try await fixture.launch()
            #expect(agent.write(Data("this is not json\n".utf8)) == nil)
            #expect(await agent.waitForExit(timeout: .seconds(30)) != nil, "the app was not killed")
            let violation = try #require(agent.protocolViolation)
            #expect(violation.problem.contains("a reply to id -1, which the harness never sent"), "\(violation)")
            #expect(violation.line.contains("not a command of protocol 1") && violation.schemaPath == nil, "\(violation)")
            #expect(violation.lineNumber >= 2, "hello's reply was line 1: \(violation)")
            do {
                _ = try await agent.inspect(download: "nothing")
                Issue.record("a send after the protocol broke succeeded")
            } catch {
                #expect(error as? AgentProcessError == .protocolViolation(violation), "\(error)")
            }
        }
    }

    /// The handshake: an app that does not answer `hello` (here `sleep`, which reads
    /// nothing) is killed after the time limit, and one that speaks another version is
    /// refused with a message saying so.
    @Test func anAppThatDoesNotAnswerHelloIsKilledAndTheErrorSaysWhy() async throws {
        await #expect(throws: AgentProcessError.noHello(seconds: 0.5)) {
            _ = try await AgentProcess.launch(
                executable: "/bin/sleep", arguments: ["600"], storage: "/tmp/none", after: .clean,
                helloTimeout: .milliseconds(500)) { _, _ in }
        }
        // A fake app that answers hello with protocol 99.
        let script = #"read line; echo '{"type":"reply","id":1,"protocol":99,"app":"old","capabilities":[]}'; sleep 600"#
        do {
            _ = try await AgentProcess.launch(
                executable: "/bin/sh", arguments: ["-c", script], storage: "/tmp/none", after: .clean) { _, _ in }
            Issue.record("a hello of protocol 99 was accepted")
        } catch {
            #expect(error == .protocolMismatch("it speaks protocol 99"))
            #expect(error.description.contains("does not speak protocol 1"), "\(error)")
        }
    }

    @Test func theAgentRefusesCommandsBeforeHelloAndAnotherVersion() async throws {
        try await withAgentFixture { fixture in
            let agent = try AgentProcess.start(executable: try benchExecutable(), arguments: ["agent"]) { _, _ in }
            await #expect(throws: AgentProcessError.refused("the first command must be hello (protocol 1)")) {
                try await agent.send(.inspect(download: "x"))
            }
            await #expect(throws: AgentProcessError.refused("this app speaks protocol 1, not 2")) {
                try await agent.send(.hello(protocol: 2, storage: fixture.storage, after: .clean))
            }
            #expect(await agent.waitForExit(timeout: .seconds(30)) == 2, "another version ends the agent with status 2")
        }
    }

    @Test func theEngineRefusalIsTheSendersError() async throws {
        try await withAgentFixture { fixture in
            let (agent, _) = try await fixture.launch()
            let request = try await fixture.request("online-only")
            do throws(AgentProcessError) {
                _ = try await agent.send(.request(request))
                Issue.record("an online-only video was accepted")
            } catch {
                guard case .refused(let why) = error else { throw error }
                #expect(why.contains("not offline-enabled"), "\(why)")
            }
            #expect(await agent.shutdown(timeout: .seconds(30)) == 0)
        }
    }

    @Test func aSIGKILLedAgentResumesAfterACrashWithoutFetchingAgain() async throws {
        try await withAgentFixture(Self.holdLargeSegments) { fixture in
            let run = try await Self.crashMidDownload(fixture, relaunchOptions: [])
            // The second run fetched only what the first had not stored.
            #expect(run.secondRun.isDisjoint(with: run.firstRun), "\(run.firstRun) then \(run.secondRun)")
            #expect(run.firstRun.union(run.secondRun) == Set(0..<20))
            #expect(run.inspection.playable && run.inspection.packageComplete == true)
            let manifest = try fixture.server.store.hashManifest(videoIDs: ["large"])
            #expect(run.inspection.segmentHashes?.count == 20)
            for (path, hash) in run.inspection.segmentHashes ?? [:] {
                #expect(hash == manifest.entries[path]?.sha256, "\(path)")
            }
        }
    }

    @Test func aSilentAgentTimesOutAndKillFailsWhatWaits() async throws {
        // `sleep` stands for an agent that hangs: it reads nothing and never answers.
        let agent = try AgentProcess.start(executable: "/bin/sleep", arguments: ["600"]) { _, _ in }
        await #expect(throws: AgentProcessError.timedOut(command: .inspect(download: "x"))) {
            try await agent.send(.inspect(download: "x"), timeout: .milliseconds(300))
        }
        let pending = Task { () -> Result<AppReplyValue, AgentProcessError> in
            do throws(AgentProcessError) {
                return .success(try await agent.send(.inspect(download: "y"), timeout: .seconds(60)))
            } catch {
                return .failure(error)
            }
        }
        // The kill must find that send waiting: a send after the exit fails the same way.
        await eventually("the second send waiting for its reply") { !agent.state.withLock { $0.pending.isEmpty } }
        #expect(agent.isRunning)
        try await agent.kill()
        #expect(await pending.value == .failure(.exited(status: 137)))
        #expect(agent.exitStatus == 137 && !agent.isRunning)
        await #expect(throws: AgentProcessError.exited(status: 137)) { try await agent.send(.inspect(download: "z")) }
        try? FileManager.default.removeItem(atPath: agent.stderrPath)
    }

    /// Without a stderr path the handle's own temporary file takes the app's stderr and
    /// goes with the handle: nothing is left in the temporary directory.
    @Test func theDefaultStderrFileGoesWithItsHandle() async throws {
        var agent: AgentProcess? = try AgentProcess.start(executable: "/bin/sh", arguments: ["-c", "echo said >&2; exec sleep 60"]) { _, _ in }
        let path = try #require(agent?.stderrPath)
        await eventually("the app's stderr in its file") { (try? String(contentsOfFile: path, encoding: .utf8)) == "said\n" }
        try await agent?.kill()
        agent = nil
        await eventually("the file removed with the handle") { !FileManager.default.fileExists(atPath: path) }
    }

    @Test func aMissingExecutableIsAnIOError() {
        #expect(throws: AgentProcessError.self) {
            try AgentProcess.start(executable: "/nonexistent/bench", arguments: []) { _, _ in }
        }
    }

    // MARK: Crash helpers

    /// Segments 10-19 of `large` hold their first byte for a minute: a run is always
    /// caught with 0-9 stored and the rest in flight.
    static func holdLargeSegments(_ configuration: inout OriginConfiguration) {
        configuration.faultRules = try! FaultRuleSet(rules: [
            FaultRule(path: "/videos/large/400k/seg1?.ts", fault: .addedTimeToFirstByte(.seconds(60)))
        ])
    }

    struct CrashRun {
        /// Video segment indexes of `large` stored by the first and the second process.
        var firstRun: Set<Int>
        var secondRun: Set<Int>
        var inspection: AppInspection
    }

    /// Downloads `clear` to the end, then `large` until the hold; SIGKILLs the agent;
    /// lifts the hold and relaunches with `--after crash` (and `relaunchOptions`) until
    /// `large` is finished. Checks `clear` is still downloaded.
    static func crashMidDownload(_ fixture: AgentFixture, relaunchOptions: [String]) async throws -> CrashRun {
        let (first, log1) = try await fixture.launch()
        _ = try await first.send(.setPath(fixture.wifi))
        let clear = try await first.requestToken(try await fixture.request("clear"))
        #expect(await log1.wait { _ in log1.isFinished(clear) })
        let large = try await first.requestToken(try await fixture.request("large"))
        #expect(await log1.wait { _ in log1.stored(large).count >= 10 }, "\(log1.stored(large))")
        try await first.kill()
        #expect(first.exitStatus == 137)
        fixture.server.setFaultRules(try FaultRuleSet(rules: []))

        let (second, log2) = try await fixture.launch(after: .crash, relaunchOptions)
        #expect(await log2.wait { _ in log2.launched(after: .crash) })
        _ = try await second.send(.setPath(fixture.wifi))
        #expect(await log2.wait { _ in log2.isFinished(large) }, "\(log2.events)")
        let inspection = try await second.inspect(download: large)
        #expect(try await second.inspect(download: clear).playable)
        #expect(await second.shutdown(timeout: .seconds(30)) == 0)
        let video = { (log: AgentEventLog) in Set(log.stored(large).filter { $0.stream == "video" }.map(\.index)) }
        return CrashRun(firstRun: video(log1), secondRun: video(log2), inspection: inspection)
    }
}
