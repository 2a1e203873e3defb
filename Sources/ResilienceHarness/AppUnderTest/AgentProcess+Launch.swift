import AppProtocol
import BenchCore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starting the app: on stdin/stdout pipes (the default), or as a command whose app
/// connects to the harness's `AppListener`.
extension AgentProcess {
    /// Starts `launch` with the scenario's `AppLaunch.Variable`s; for an app that connects
    /// over TCP, returns once it connected with this launch's token.
    static func start(
        _ launch: AppLaunch, storage: String, after: RelaunchKind, stderrPath: String?, connectTimeout: Duration,
        onEvent: @escaping @Sendable (_ t: UInt64, _ event: AppEvent) -> Void
    ) async throws(AgentProcessError) -> AgentProcess {
        var environment = [AppLaunch.Variable.storage: storage, AppLaunch.Variable.relaunch: after.rawValue]
        if let caFile = launch.caFile { environment[AppLaunch.Variable.caFile] = caFile }
        guard let listener = launch.listener else {
            return try startOnPipes(launch, environment: environment, stderrPath: stderrPath, onEvent: onEvent)
        }
        let token = listener.expect()
        environment[AppLaunch.Variable.connect] = listener.address
        environment[AppLaunch.Variable.token] = token
        signal(SIGPIPE, SIG_IGN)
        let errorFile = stderrPath ?? temporaryStderrPath()
        let child: ChildProcess
        do {
            // Its stdout is no protocol here: both its outputs go to the stderr file.
            child = try ChildProcess.spawn(
                launch.command.executable, launch.command.arguments, stdout: .append(errorFile), stderr: .append(errorFile),
                ownProcessGroup: true, environment: environment)
        } catch {
            listener.forget(token)
            if stderrPath == nil { try? FileManager.default.removeItem(atPath: errorFile) }
            throw .launchFailed("\(launch.command) did not start: \(error.reason)")
        }
        let command = launch.command.description
        let connected = await listener.connection(token: token, timeout: connectTimeout) {
            // A launcher may exit 0 once the app runs; a failure before the app connected ends the wait.
            guard let ended = child.termination, ended != .exited(0) else { return nil }
            return .launchFailed("\(command) ended (\(ended)) before the app connected; its output ends: "
                + tail(of: errorFile))
        }
        switch connected {
        case .failure(let error):
            child.signalGroup(SIGKILL)
            child.send(SIGKILL)
            await child.exit()
            if stderrPath == nil { try? FileManager.default.removeItem(atPath: errorFile) }
            throw error
        case .success(let socket):
            let process = AgentProcess(
                child: child, stdin: dup(socket), stderrPath: errorFile, ownsStderrFile: stderrPath == nil, socket: socket,
                killCommand: launch.killCommand, environment: environment, onEvent: onEvent)
            let name = "agent-\(child.pid)-socket"
            let monitor = Thread {
                ThreadName.apply(name)
                process.monitor(stdout: socket)
            }
            monitor.name = name
            monitor.start()
            return process
        }
    }

    /// Starts the process with its stdin and stdout as pipes to the handle, with no handshake.
    static func startOnPipes(
        _ launch: AppLaunch, environment: [String: String], stderrPath: String?,
        onEvent: @escaping @Sendable (_ t: UInt64, _ event: AppEvent) -> Void
    ) throws(AgentProcessError) -> AgentProcess {
        signal(SIGPIPE, SIG_IGN)
        let errorFile = stderrPath ?? temporaryStderrPath()
        // The app starts as if from a shell (no signal blocked, SIGPIPE default), in a process
        // group of its own: a kill (a crash) kills the whole app, the children of a shell
        // wrapper included, whose copy of stdout would otherwise outlive it.
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(
                launch.command.executable, launch.command.arguments, stdin: .pipe, stdout: .pipe, stderr: .append(errorFile),
                ownProcessGroup: true, environment: environment)
        } catch {
            if stderrPath == nil { try? FileManager.default.removeItem(atPath: errorFile) }
            throw .io("\(error)")
        }
        let process = AgentProcess(
            child: child, stdin: child.input!, stderrPath: errorFile, ownsStderrFile: stderrPath == nil,
            killCommand: launch.killCommand, environment: environment, onEvent: onEvent)
        let stdout = child.output!
        let name = "agent-\(child.pid)-stdout"
        let monitor = Thread {
            ThreadName.apply(name)
            process.monitor(stdout: stdout)
        }
        monitor.name = name
        monitor.start()
        return process
    }

    /// A new stderr file's path in the temporary directory.
    static func temporaryStderrPath() -> String {
        NSTemporaryDirectory() + "deadzone-agent-\(UUID().uuidString).stderr"
    }

    /// The last 300 characters of the file at `path`, on one line (`(nothing)` when empty).
    static func tail(of path: String) -> String {
        tail(ofText: String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)) ?? "(nothing)"
    }

    /// The last 300 characters of `text`, trimmed, on one line; nil when nothing is left.
    static func tail(ofText text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : String(trimmed.suffix(300)).replacingOccurrences(of: "\n", with: " | ")
    }

    /// Keeps the pid the app's hello gave, when the app connected over TCP and that
    /// process holds the other end of its connection: a crash then SIGKILLs it too.
    func adopt(pid: Int32?) {
        guard let pid, let socket, pid > 0 else { return }
        state.withLock { state in
            // Under the lock: the monitor has not closed the connection, so `socket` is still it.
            if !state.connectionClosed, SocketOwner.holdsPeer(of: socket, pid: pid) {
                state.connectedPID = pid
            } else {
                state.diagnostics.append("the hello's pid \(pid) does not hold the app's connection here: not killed by pid")
            }
        }
    }
}
