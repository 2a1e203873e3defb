import BenchCore
import FixtureOrigin
import Foundation
import LinkConditioner

/// One client under one fault mode: its own conditioner in front of the comparison's
/// origin, the client's command started (and for kill-rerun, killed and started again),
/// the mode's script played against the bytes the client has received, then the output
/// judged and the run measured. Everything it does goes into the comparison's trace.
struct ClientRunDriver {
    var client: ClientDefinition
    var mode: FaultMode
    var options: ComparisonOptions
    var links: ComparisonLinks
    var origin: OriginServer
    var collector: ComparisonTrace
    var inspector: OutputInspector
    /// Whether connect() calls are traced with strace.
    var traceConnects: Bool
    /// The run's work directory.
    var directory: String

    /// The URL paths of the comparison video.
    static let masterPath = "/videos/\(ComparisonContent.videoID)/master.m3u8"
    static let catalogPath = "/videos/\(ComparisonContent.videoID)"

    private struct Attempt {
        var process: ClientProcess
        var start: UInt64
        var end: UInt64?
        var status: Int32?
        var killed: String?
    }

    func run(progress: @escaping @Sendable (ComparisonProgress) -> Void) async -> ClientRunResult {
        let start = collector.now
        let contentBytes = inspector.content.count
        func failure(_ why: String, command: String = "") -> ClientRunResult {
            ClientRunResult(
                client: client.name, mode: mode, outcome: .notRun, command: command, attempts: [], exitStatus: nil,
                timedOut: false, output: nil, metrics: nil, startNanoseconds: start, endNanoseconds: collector.now,
                stderrTail: "", error: why)
        }
        do {
            try? FileManager.default.removeItem(atPath: directory)
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            return failure("cannot create the work directory \(directory): \(error.localizedDescription)")
        }
        let conditioner: LinkConditioner
        do {
            let profile = Profile(
                name: "\(options.profile.name)/\(mode.rawValue)", seed: options.seed(of: mode),
                initial: mode.initialSetup(base: links, settings: options.settings))
            conditioner = try await LinkConditioner.start(
                configuration: ConditionerConfiguration(
                    upstream: SocketAddress(host: "127.0.0.1", port: UInt16(origin.port)), proxyProtocol: true,
                    profile: profile, playTimeline: false, epoch: collector.epoch),
                sink: collector)
        } catch {
            return failure("cannot start the link conditioner: \(error)")
        }
        let interface = mode.clientInterface
        let endpoint = conditioner.endpoints[interface]?.description ?? "127.0.0.1:0"
        let output = (directory as NSString).appendingPathComponent(client.output)
        let command: String
        do {
            command = try ClientCommandLine.render(client.command, client: client.name, values: [
                .url: "http://\(endpoint)\(Self.masterPath)", .catalogURL: "http://\(endpoint)\(Self.catalogPath)",
                .output: output, .workdir: directory, .bench: options.executable,
            ])
        } catch {
            await conditioner.stop()
            return failure(error.description)
        }
        let logStart = origin.requestLog.count
        let paths = RunPaths(directory: directory)
        var attempts: [Attempt] = []
        var script = mode.script(settings: options.settings)
        var downAt: UInt64?
        var outages: [Range<UInt64>] = []
        var killedAt: UInt64?
        var timedOut = false
        var launchError: String?

        func launch() -> Bool {
            let number = attempts.count + 1
            do {
                let process = try ClientProcess.launch(
                    command: command, directory: directory, stdoutPath: paths.stdout, stderrPath: paths.stderr,
                    connectTrace: traceConnects ? paths.connectTrace(number) : nil, strace: options.strace)
                attempts.append(Attempt(process: process, start: collector.now))
                collector.harness(.clientLaunched(client: client.name, mode: mode.rawValue, pid: process.pid, attempt: number))
                return true
            } catch {
                launchError = error.description
                return false
            }
        }
        func perform(_ actions: [FaultScript.Action]) async {
            for action in actions {
                switch action {
                case let .takeDown(kind, downMode):
                    conditioner.setState(kind, .down(downMode))
                    collector.harness(.interfaceSet(kind, up: false, mode: downMode))
                    downAt = collector.now
                case let .bringUp(kind):
                    conditioner.setState(kind, .up)
                    collector.harness(.interfaceSet(kind, up: true, mode: nil))
                    if let since = downAt { outages.append(since..<collector.now) }
                    downAt = nil
                case .killAndRerun:
                    guard var current = attempts.popLast() else { continue }
                    killedAt = collector.now
                    collector.harness(.killed(pid: current.process.pid, reason: "kill-rerun at \(Int(options.settings.killAt * 100))% of the content"))
                    current.status = await current.process.killGroup()
                    current.end = collector.now
                    current.killed = "kill-rerun"
                    collector.harness(.clientExited(client: client.name, pid: current.process.pid, status: current.status ?? -1))
                    attempts.append(current)
                    _ = launch()
                }
            }
        }

        guard launch() else {
            await conditioner.stop()
            return failure(launchError ?? "cannot start the client", command: command)
        }
        let runStart = ContinuousClock.now
        var lastReport = ContinuousClock.now - .seconds(1)
        while let current = attempts.last, current.end == nil {
            if let status = current.process.poll() {
                attempts[attempts.count - 1].status = status
                attempts[attempts.count - 1].end = collector.now
                collector.harness(.clientExited(client: client.name, pid: current.process.pid, status: status))
                break
            }
            let elapsed = ContinuousClock.now - runStart
            if elapsed >= options.timeLimit {
                timedOut = true
                collector.harness(.killed(pid: current.process.pid, reason: "time limit (\(Int(options.timeLimit.seconds)) s)"))
                let status = await current.process.killGroup()
                attempts[attempts.count - 1].status = status
                attempts[attempts.count - 1].end = collector.now
                attempts[attempts.count - 1].killed = "time limit"
                collector.harness(.clientExited(client: client.name, pid: current.process.pid, status: status ?? -1))
                break
            }
            let snapshot = await conditioner.snapshot()
            let received = snapshot.interface(interface)?.counters.bytesDownlink ?? 0
            await perform(script.advance(now: collector.now, received: received, content: contentBytes))
            if ContinuousClock.now - lastReport >= .milliseconds(500) {
                lastReport = ContinuousClock.now
                progress(.running(
                    client: client.name, mode: mode, elapsed: elapsed, limit: options.timeLimit, received: received,
                    content: contentBytes, attempt: attempts.count))
            }
            _ = try? await Timekeeper.shared.sleep(for: .milliseconds(100))
        }
        await perform(script.finish())
        attempts.last?.process.killStragglers()
        let snapshot = await conditioner.snapshot()
        await conditioner.stop()
        let records = await settledLog(from: logStart)
        var names: [String: InterfaceKind] = [:]
        for (kind, address) in conditioner.endpoints { names[address.description] = kind }
        collector.absorb(origin: records, interfaces: names)
        let end = collector.now

        let last = attempts.last
        let outputCheck = await inspector.check(output, method: client.validation)
        let bytesByInterface = Dictionary(uniqueKeysWithValues: snapshot.interfaces.map { ($0.kind.rawValue, $0.counters.bytesDownlink) })
        let connects = traceConnects ? connectAttempts(paths: paths, count: attempts.count, endpoint: endpoint) : nil
        let wall = Double((last?.end ?? end) &- (attempts.first?.start ?? start)) / 1e9
        let metrics = ClientRunMetrics.measure(ClientRunFacts(
            records: records, epoch: collector.epoch, outages: outages, killedAt: killedAt, connectAttempts: connects,
            bytesByInterface: bytesByInterface, contentBytes: contentBytes, wallSeconds: wall))
        let outcome = ClientOutcome.classify(
            exitStatus: last?.status, timedOut: timedOut, successExitCodes: client.successExitCodes, output: outputCheck)
        let result = ClientRunResult(
            client: client.name, mode: mode, outcome: outcome, command: command,
            attempts: attempts.map {
                ClientAttempt(pid: $0.process.pid, startNanoseconds: $0.start, endNanoseconds: $0.end ?? end, exitStatus: $0.status, killed: $0.killed)
            },
            exitStatus: timedOut ? nil : last?.status, timedOut: timedOut, output: outputCheck, metrics: metrics,
            startNanoseconds: start, endNanoseconds: end, stderrTail: paths.stderrTail())
        if !options.keepWorkDirectories { try? FileManager.default.removeItem(atPath: directory) }
        return result
    }

    /// The origin's records from `index` on, once no new one has come for 300 ms (the
    /// origin logs a response when it ends, which for a connection the conditioner just
    /// closed may take a moment), at most 5 s.
    private func settledLog(from index: Int) async -> [OriginRequestRecord] {
        var count = -1
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            let now = origin.requestLog.count
            if now == count { break }
            count = now
            _ = try? await Timekeeper.shared.sleep(for: .milliseconds(300))
        }
        let log = origin.requestLog
        return Array(log[min(index, log.count)...])
    }

    /// The trace times of the connect() calls to `endpoint` in the strace files.
    private func connectAttempts(paths: RunPaths, count: Int, endpoint: String) -> [UInt64] {
        let epochWall = collector.epochWallClock.timeIntervalSince1970
        var times: [UInt64] = []
        for attempt in 1...max(1, count) {
            guard let data = FileManager.default.contents(atPath: paths.connectTrace(attempt)) else { continue }
            for call in ConnectTrace.attempts(in: String(decoding: data, as: UTF8.self)) where "\(call.host):\(call.port)" == endpoint {
                times.append(UInt64(max(0, (call.wallSeconds - epochWall) * 1e9)))
            }
        }
        return times
    }
}

/// The files of one run's work directory.
struct RunPaths {
    var directory: String

    var stdout: String { directory + "/client.stdout" }
    var stderr: String { directory + "/client.stderr" }
    func connectTrace(_ attempt: Int) -> String { directory + "/connect-\(attempt).strace" }

    /// The last lines the client wrote on stderr, at most 8 lines and 2,000 characters.
    func stderrTail() -> String {
        guard let data = FileManager.default.contents(atPath: stderr) else { return "" }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
        return String(lines.suffix(8).joined(separator: "\n").suffix(2000))
    }
}
