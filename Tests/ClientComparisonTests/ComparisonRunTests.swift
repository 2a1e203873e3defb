import BenchCore
import Foundation
import Testing
@testable import ClientComparison

/// Whole comparisons with real processes, a real origin and a real conditioner on
/// loopback, and black-box clients that behave well or badly on purpose.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ComparisonRunTests {
    @Test func eachKindOfOutcomeIsReportedForWhatTheClientDid() async throws {
        let script = try FakeClient.install()
        defer { try? FileManager.default.removeItem(atPath: script) }
        let options = smallComparison(
            clients: [
                FakeClient.definition("honest", script: script), FakeClient.definition("half", script: script, how: "half"),
                FakeClient.definition("corrupt", script: script, how: "corrupt"),
                FakeClient.definition("liar", script: script, how: "fail"),
            ],
            modes: [.clean])
        let run = try await ComparisonRunner.run(options)
        let report = run.report
        #expect(report.runs.count == 4)
        #expect(report.content.segments == 6)

        let honest = try #require(report.run(client: "honest", mode: .clean))
        #expect(honest.outcome == .ok, "\(honest)")
        #expect(honest.output?.detail.contains("byte-identical") == true)
        #expect(honest.exitStatus == 0)
        #expect(honest.metrics?.originBytesSentAgain == 0)
        #expect((honest.metrics?.wastedBytes ?? .max) < 10_000, "only playlists and headers beyond the content")
        #expect((honest.metrics?.bytesByInterface["wifi"] ?? 0) >= report.content.bytes)
        #expect(honest.metrics?.bytesByInterface["cellular"] == 0)

        // Exit 0 with half the content: silent data loss, not success.
        let half = try #require(report.run(client: "half", mode: .clean))
        #expect(half.outcome == .silentDataLoss, "\(half)")
        #expect(half.exitStatus == 0)
        #expect(half.output?.detail.contains("missing content") == true, "\(half.output?.detail ?? "")")
        #expect(half.output?.detail.contains("first 3 of 6 segments whole") == true, "\(half.output?.detail ?? "")")

        let corrupt = try #require(report.run(client: "corrupt", mode: .clean))
        #expect(corrupt.outcome == .silentDataLoss)
        #expect(corrupt.output?.detail.contains("corrupt: differs from the content at byte 1000") == true)

        // A whole copy but an error status: the client says it failed, so it failed.
        let liar = try #require(report.run(client: "liar", mode: .clean))
        #expect(liar.outcome == .failed)
        #expect(liar.exitStatus == 3)
        #expect(liar.output?.valid == true)

        // The trace has each client's start and end, and the origin's requests.
        let launches = run.trace.filter { if case .harness(.clientLaunched) = $0.event { true } else { false } }
        let exits = run.trace.filter { if case .harness(.clientExited) = $0.event { true } else { false } }
        #expect(launches.count == 4 && exits.count == 4)
        #expect(run.trace.contains { if case .origin(let record) = $0.event { record.interface == "wifi" } else { false } })
    }

    @Test func aClientStillRunningAtTheTimeLimitIsHungAndKilled() async throws {
        let sleeper = ClientDefinition(name: "sleeper", command: "sleep 60 # {url} {output}")
        let started = ContinuousClock.now
        let report = try await ComparisonRunner.run(smallComparison(clients: [sleeper], modes: [.clean], timeLimit: .seconds(2))).report
        let run = try #require(report.runs.first)
        #expect(run.outcome == .hung)
        #expect(run.timedOut)
        #expect(run.attempts.first?.killed == "time limit")
        #expect(run.attempts.first?.exitStatus == Int32(128 + 9))
        #expect(ContinuousClock.now - started < .seconds(40), "the time limit did not stop the client")
    }

    @Test func aKillAndRerunTellsAResumingClientFromOneThatStartsOver() async throws {
        let script = try FakeClient.install()
        defer { try? FileManager.default.removeItem(atPath: script) }
        let options = smallComparison(
            clients: [FakeClient.definition("resumer", script: script, how: "resume"), FakeClient.definition("restarter", script: script)],
            // 8 s a download: the kill at 4 s lands mid-way however late a loaded machine polls.
            modes: [.killRerun], targetSeconds: 8)
        let report = try await ComparisonRunner.run(options).report
        for name in ["resumer", "restarter"] {
            let run = try #require(report.run(client: name, mode: .killRerun))
            #expect(run.outcome == .ok, "\(name): \(run)")
            #expect(run.attempts.count == 2, "\(name) was not killed and rerun")
            #expect(run.attempts.first?.killed == "kill-rerun")
            #expect(run.attempts.first?.exitStatus == Int32(128 + 9))
        }
        let resumer = try #require(report.run(client: "resumer", mode: .killRerun)?.metrics)
        let restarter = try #require(report.run(client: "restarter", mode: .killRerun)?.metrics)
        #expect(resumer.resumed == true, "resumer fetched \(resumer.bytesFetchedAgain ?? -1) bytes again")
        #expect(restarter.resumed == false, "restarter fetched only \(restarter.bytesFetchedAgain ?? -1) bytes again")
        #expect((restarter.bytesFetchedAgain ?? 0) > (resumer.bytesFetchedAgain ?? 0))
    }

    @Test func outagesAreMeasuredAndCellularOnlyRunsThroughCellular() async throws {
        let script = try FakeClient.install()
        defer { try? FileManager.default.removeItem(atPath: script) }
        let run = try await ComparisonRunner.run(
            smallComparison(clients: [FakeClient.definition("retrier", script: script)], modes: [.resetWindow, .cellularOnly]))
        let report = run.report
        let window = try #require(report.run(client: "retrier", mode: .resetWindow))
        #expect(window.outcome == .ok, "\(window)")
        // The window went down and came back, in the trace.
        let sets = run.trace.compactMap { entry -> Bool? in
            if case let .harness(.interfaceSet(.wifi, up, _)) = entry.event { return up } else { return nil }
        }
        #expect(sets == [false, true])
        #expect(window.metrics?.requestsDuringOutages == 0, "a request reached the origin through a down interface")
        // curl retries a refused connection every second: strace sees attempts the proxy never does.
        #expect(report.connectTracing == "strace", "strace must be installed and allowed (apt-get install strace): \(report.connectTracing)")
        #expect((window.metrics?.connectAttemptsDuringOutages ?? 0) >= 1)

        let cellular = try #require(report.run(client: "retrier", mode: .cellularOnly))
        #expect(cellular.outcome == .ok, "\(cellular)")
        #expect((cellular.metrics?.bytesByInterface["cellular"] ?? 0) >= report.content.bytes)
        #expect(cellular.metrics?.bytesByInterface["wifi"] == 0)
    }

    @Test func clientsThatCannotRunHereAreReportedWithWhatToInstall() async throws {
        let missing = ClientDefinition(
            name: "missing", command: "deadzone-no-such-tool {url} {output}", requires: ["deadzone-no-such-tool"],
            install: "apt-get install deadzone-no-such-tool")
        let media = ClientDefinition(name: "remuxer", command: "cp {url} {output}", validation: .media)
        let report = try await ComparisonRunner.run(smallComparison(clients: [missing, media], modes: [.clean, .killRerun])).report
        #expect(report.runs.count == 4)
        #expect(report.runs.allSatisfy { $0.outcome == .notRun && $0.attempts.isEmpty })
        let entry = try #require(report.clients.first { $0.definition.name == "missing" })
        #expect(entry.missing == ["deadzone-no-such-tool"])
        #expect(entry.notRunReason?.contains("install with: apt-get install deadzone-no-such-tool") == true)
        #expect(report.clients.last?.notRunReason?.contains("--media real") == true)
    }
}
