import AppProtocol
import BenchCore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Crashing the app: SIGKILL of what the harness can reach of it, or the kill command.
extension AgentProcess {
    /// How long a kill command may run, and then how long the app may take to be gone.
    static let killCommandTimeout = Duration.seconds(30)
    static let goneAfterKillTimeout = Duration.seconds(10)

    /// Crashes the app and returns once it is gone (reaped, or, for an app that connected
    /// over TCP, its connection ended); every pending `send` fails with `.exited`.
    ///
    /// With a kill command (`AppLaunch.killCommand`) that command is the crash: it runs with
    /// the launch's variables, `DEADZONE_APP_PID` and `DEADZONE_KILL_REASON` (`reason`: what
    /// the kill plays, e.g. `userForceQuit`), and must end with status 0 within 30 s,
    /// after which the app must be gone within 10 s. Without one: SIGKILL of the launched
    /// process group while it runs, and of the pid the hello gave once checked to hold the
    /// app's connection.
    /// - Throws: `.killFailed` when the kill command failed or the app outlived it, or when
    ///   nothing could reach the app (it was then disconnected; the crash did not happen).
    public func kill(reason: String = "crash") async throws(AgentProcessError) {
        sampleRSS()  // a last reading: a killed process's status has no VmHWM any more
        guard isRunning else { return }
        if let command = killCommand {
            if let failure = await runKillCommand(command, reason: reason) {
                _ = await end()  // the app is ended anyway, as far as the harness reaches it
                throw .killFailed(failure)
            }
            return
        }
        if let failure = await end() { throw .killFailed(failure) }
    }

    /// SIGKILLs what the harness reaches of the app and waits until it is gone; for an app
    /// on TCP that nothing reached, or whose connection outlives the SIGKILL by 10 s, ends
    /// the connection and says why the crash did not happen.
    private func end() async -> String? {
        // Before any disconnect: the hello's pid is checked against the live connection.
        let reached = signalApp()
        if socket == nil { _ = await waitForExit(); return nil }
        if reached, await waitForExit(timeout: Self.goneAfterKillTimeout) != nil { return nil }
        disconnect()
        _ = await waitForExit()
        return reached
            ? "its connection stayed open \(Self.goneAfterKillTimeout.seconds.formatted()) s after SIGKILL of the launched "
                + "process group and of the hello's pid: another process holds it; give --kill 'CMD'"
            : "the launched process has ended and the app's hello gave no pid of a process holding its connection "
                + "(docs/app-protocol.md, over a socket): give --kill 'CMD' for an app the harness did not start itself"
    }

    /// Runs the kill command; why it failed, or nil once the app is gone.
    private func runKillCommand(_ command: String, reason: String) async -> String? {
        var variables = environment
        variables[AppLaunch.Variable.killReason] = reason
        variables[AppLaunch.Variable.appPID] = String(state.withLock { $0.connectedPID ?? $0.hello?.pid } ?? child.pid)
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await ChildProcess.run(
                "/bin/sh", ["-c", command], timeout: Self.killCommandTimeout, environment: variables, ownProcessGroup: true)
        } catch {
            return "the kill command could not start: \(error)"
        }
        let said = Self.tail(ofText: outcome.stderr + outcome.stdout).map { "; it wrote: " + $0 } ?? ""
        if outcome.timedOut {
            return "the kill command `\(command)` did not end within \(Self.killCommandTimeout.seconds.formatted()) s (it was killed)\(said)"
        }
        guard outcome.termination == .exited(0) else {
            return "the kill command `\(command)` failed (\(outcome.termination))\(said)"
        }
        guard await waitForExit(timeout: Self.goneAfterKillTimeout) == nil else { return nil }
        return "the kill command `\(command)` ended with status 0, but the app was still "
            + (socket == nil ? "running" : "connected") + " \(Self.goneAfterKillTimeout.seconds.formatted()) s later"
    }

    /// SIGKILLs the launched process group while it is not reaped, and the pid the hello
    /// gave while it still holds the app's connection; whether either was there to kill.
    func signalApp() -> Bool {
        state.withLock { signalApp(&$0) }
    }

    /// `signalApp()` for a caller that holds `state`'s lock.
    func signalApp(_ state: inout State) -> Bool {
        var reached = false
        // Under the lock that reaping takes: until then the pid is still this app's, and so
        // is its process group (the group outlives no member, and is not reused while the
        // leader is unreaped). The whole group: a shell wrapper's children too.
        // Never once the launched process is reaped: this machine reuses process ids within
        // seconds (pid_max may be 32768), and the number could then lead a stranger's group.
        if state.exitStatus == nil, child.isRunning {
            child.signalGroup(SIGKILL)
            child.send(SIGKILL)
            reached = true
        }
        if let pid = state.connectedPID, let socket, !state.connectionClosed, SocketOwner.holdsPeer(of: socket, pid: pid),
            Glibc.kill(pid, SIGKILL) == 0
        {
            reached = true
        }
        return reached
    }

    /// Ends the app's connection from the harness's side (an app on TCP then sees its end,
    /// and the monitor reads the end of its input); nothing on stdin/stdout.
    func disconnect() {
        guard let socket else { return }
        state.withLock { state in
            if !state.connectionClosed { Glibc.shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }
}
