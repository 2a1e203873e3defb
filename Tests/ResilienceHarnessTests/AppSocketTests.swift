import AppProtocol
import BenchCore
import Foundation
@testable import ResilienceHarness
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The app protocol over a socket (`--agent-listen`), launch and kill commands
/// (`--launch`, `--kill`): real processes (the Python reference engine, shell commands)
/// connecting to a real `AppListener` on loopback, and every way that can go wrong ending
/// in an error that says what happened.
@Suite(.timeLimit(.minutes(3))) struct AppSocketTests {
    static let engine = ShippedScenarios.root + "/examples/agents/python/agent.py"

    /// A scratch storage directory, removed by `remove()`.
    struct Storage {
        let path = NSTemporaryDirectory() + "deadzone-socket-\(UUID().uuidString)"
        func remove() { try? FileManager.default.removeItem(atPath: path) }
    }

    static func launch(
        _ command: String, listener: AppListener, kill: String? = nil, storage: Storage, timeout: Duration = .seconds(30)
    ) async throws(AgentProcessError) -> AgentProcess {
        try await AgentProcess.launch(
            AppLaunch(command: AppLaunch.shell(command), listener: listener, killCommand: kill), storage: storage.path,
            after: .clean, helloTimeout: timeout) { _, _ in }
    }

    /// Whether a process with this pid exists (and is no zombie).
    static func alive(_ pid: Int32) -> Bool {
        guard let status = AgentProcess.contents(of: "/proc/\(pid)/status") else { return false }
        return !status.contains("State:\tZ")
    }

    /// The error `body` threw, or nil.
    static func failure(_ body: () async throws -> Void) async -> AgentProcessError? {
        do { try await body() } catch { return error as? AgentProcessError ?? .io("not an AgentProcessError: \(error)") }
        return nil
    }

    @Test func aConnectionIsOwnedByTheProcessAtItsOtherEnd() async throws {
        let listener = try AppListener.listen("127.0.0.1:0")
        defer { listener.close() }
        let token = listener.expect()
        let port = UInt16(listener.address.split(separator: ":")[1])!
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(client) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        let line = Array("{\"type\":\"connect\",\"token\":\"\(token)\"}\n".utf8)
        #expect(send(client, line, line.count, 0) == line.count)
        let accepted = try await listener.connection(token: token, timeout: .seconds(10)).get()
        defer { close(accepted) }
        #expect(SocketOwner.holdsPeer(of: accepted, pid: getpid()))
        #expect(!SocketOwner.holdsPeer(of: accepted, pid: 1))
    }

    /// The reference engine, launched by a shell command, connects with its token, answers
    /// hello with its pid, takes commands, and a crash (SIGKILL of the launched group)
    /// ends it; a relaunch connects again with a new token.
    @Test func aLaunchedEngineConnectsAndIsKilled() async throws {
        let listener = try AppListener.listen("127.0.0.1:0")
        defer { listener.close() }
        let storage = Storage()
        defer { storage.remove() }
        let app = try await Self.launch("exec python3 '\(Self.engine)'", listener: listener, storage: storage)
        let pid = try #require(app.hello?.pid)
        #expect(pid == app.pid, "exec: the launched process is the app")
        #expect(app.socket != nil)
        _ = try await app.send(.setForeground(true))
        try await app.kill()
        #expect(!app.isRunning)
        await eventually("the killed app's end") { !Self.alive(pid) }
        let again = try await Self.launch("exec python3 '\(Self.engine)'", listener: listener, storage: storage)
        #expect(again.hello?.pid != pid)
        #expect(await again.shutdown(timeout: .seconds(10)) == 0)
        #expect(listener.refusals.isEmpty)
    }

    /// A launcher that ends at once and leaves the app in a session of its own: the crash
    /// is a SIGKILL of the pid the hello gave, once checked to hold the connection.
    @Test func anAppOutsideTheLaunchedGroupIsKilledByTheHellosPid() async throws {
        let listener = try AppListener.listen("127.0.0.1:0")
        defer { listener.close() }
        let storage = Storage()
        defer { storage.remove() }
        let app = try await Self.launch(
            "setsid python3 '\(Self.engine)' > /dev/null 2>&1 &", listener: listener, storage: storage)
        let pid = try #require(app.hello?.pid)
        #expect(pid != app.pid && Self.alive(pid))
        #expect(app.state.withLock { $0.connectedPID } == pid)
        try await app.kill()
        await eventually("the end of the pid the hello gave") { !Self.alive(pid) }
    }

    /// A kill command is the crash: it gets the app's pid; one that fails, or leaves the
    /// app connected, is an error that says so (the app is then ended anyway).
    @Test func aKillCommandIsTheCrashAndItsFailureIsAnError() async throws {
        let listener = try AppListener.listen("127.0.0.1:0")
        defer { listener.close() }
        let storage = Storage()
        defer { storage.remove() }
        let detached = "setsid python3 '\(Self.engine)' > /dev/null 2>&1 &"
        let killed = try await Self.launch(
            detached, listener: listener, kill: #"[ "$DEADZONE_KILL_REASON" = userForceQuit ] && kill -9 $DEADZONE_APP_PID"#,
            storage: storage)
        let pid = try #require(killed.hello?.pid)
        try await killed.kill(reason: "userForceQuit")
        await eventually("the end of the pid the kill command was given") { !Self.alive(pid) }

        let failing = try await Self.launch(detached, listener: listener, kill: "echo no such device >&2; exit 3", storage: storage)
        let error = await Self.failure { try await failing.kill() }
        #expect(error?.description.contains("the kill command `echo no such device >&2; exit 3` failed (exit status 3); it wrote: no such device") == true, "\(String(describing: error))")
        #expect(!failing.isRunning)
        if let pid = failing.hello?.pid { await eventually("the app's end after its kill command failed") { !Self.alive(pid) } }

        let idle = try await Self.launch(detached, listener: listener, kill: "true", storage: storage)
        let lingering = await Self.failure { try await idle.kill() }
        #expect(lingering?.description.contains("ended with status 0, but the app was still connected 10 s later") == true, "\(String(describing: lingering))")
    }

    /// Without a kill command, an app the harness can reach neither through the launched
    /// group nor through a pid is not "crashed" by a disconnect: that is an error.
    @Test func anAppNothingCanKillIsAnError() async throws {
        let listener = try AppListener.listen("127.0.0.1:0")
        defer { listener.close() }
        let storage = Storage()
        defer { storage.remove() }
        // A hello without a pid, from a process outside the launched group.
        let script = #"import json, os, socket; s = socket.create_connection(tuple([os.environ["DEADZONE_CONNECT"].split(":")[0], int(os.environ["DEADZONE_CONNECT"].split(":")[1])])); f = s.makefile("rw"); f.write(json.dumps({"type": "connect", "token": os.environ["DEADZONE_TOKEN"]}) + "\n"); f.flush(); c = json.loads(f.readline()); f.write(json.dumps({"type": "reply", "id": c["id"], "protocol": 1, "app": "nopid", "capabilities": []}) + "\n"); f.flush(); f.readline()"#
        let path = storage.path + ".py"
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let app = try await Self.launch("setsid python3 '\(path)' > /dev/null 2>&1 &", listener: listener, storage: storage)
        #expect(app.hello?.pid == nil)
        let error = await Self.failure { try await app.kill() }
        #expect(error?.description.contains("give --kill 'CMD' for an app the harness did not start itself") == true, "\(String(describing: error))")
        #expect(!app.isRunning)
    }

    /// A launch command that fails, an app that never connects, a connection with a wrong
    /// token: each an error naming what happened, without waiting the whole time limit
    /// for the failed command.
    @Test func aBadLaunchAWrongTokenAndNoConnectionAreErrors() async throws {
        let listener = try AppListener.listen("127.0.0.1:0")
        defer { listener.close() }
        let storage = Storage()
        defer { storage.remove() }
        // A long time limit, and a bound far below it: the test's own task resumes on the
        // cooperative pool, which the suite's CPU-bound tests can hold for many seconds.
        let start = ContinuousClock.now
        let failed = await Self.failure {
            _ = try await Self.launch(
                "echo simulator not booted >&2; exit 7", listener: listener, storage: storage, timeout: .seconds(180))
        }
        #expect(failed?.description.contains("ended (exit status 7) before the app connected; its output ends: simulator not booted") == true, "\(String(describing: failed))")
        #expect(ContinuousClock.now - start < .seconds(90), "a failed launch ends the wait early, not at its 180 s limit")

        let missing = await Self.failure {
            _ = try await Self.launch("no-such-launcher-here", listener: listener, storage: storage)
        }
        #expect(missing?.description.contains("exit status 127") == true, "\(String(describing: missing))")

        let silent = await Self.failure {
            _ = try await Self.launch("sleep 30", listener: listener, storage: storage, timeout: .seconds(2))
        }
        #expect(silent?.description.contains("the app never connected") == true, "\(String(describing: silent))")
        #expect(silent?.description.contains("no connection came at all") == true, "\(String(describing: silent))")

        // bash (not python: quick to start on a busy machine) connects with a token the
        // harness never handed out, and waits.
        let impostor = #"exec bash -c 'exec 3<>/dev/tcp/${DEADZONE_CONNECT%:*}/${DEADZONE_CONNECT#*:}; "#
            + #"echo "{\"type\":\"connect\",\"token\":\"0123456789abcdef\"}" >&3; read -t 30 line <&3; sleep 30'"#
        let wrong = await Self.failure {
            _ = try await Self.launch(impostor, listener: listener, storage: storage, timeout: .seconds(10))
        }
        #expect(wrong?.description.contains("connections refused: token 01234567… is not one the harness handed out") == true, "\(String(describing: wrong))")
    }
}
