import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process: the one type the package starts processes with (`spawn`, in
/// ChildProcess+Spawn.swift). Its stdin is `/dev/null` or a pipe; its stdout and stderr go
/// to files, pipes or nowhere; it may lead a process group of its own. It is reaped with
/// wait4 under a lock, so its CPU time and peak memory are kept and no signal reaches a
/// reused pid. Owned by whoever spawned it; any thread may call it.
///
/// Foundation's `Process` is not used: on Linux with Swift 6.3.1 its `run()` reads
/// `/proc/self/fd` entries past the end of glibc's buffer and now and then crashes the
/// whole process (swift-corelibs-foundation PR 5472, fixed after that release); a test
/// suite or a harness that starts hundreds of children meets it. Here the child closes
/// every descriptor above 2 as it starts (glibc's closefrom action), so it holds no
/// other child's pipes or sockets, even one opened by another thread meanwhile.
public final class ChildProcess: Sendable {
    /// How a child ended.
    public enum Termination: Sendable, Hashable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)
        /// It was reaped elsewhere (SIGCHLD ignored, or a stray wait): the status is lost.
        case lost

        /// The exit status, or the signal's number (as Foundation's `terminationStatus`); -1 when lost.
        public var status: Int32 {
            switch self {
            case .exited(let code), .signalled(let code): code
            case .lost: -1
            }
        }

        /// As a shell shows it: the exit status, or 128 + the signal's number; -1 when lost.
        public var shellStatus: Int32 {
            if case .signalled(let signal) = self { return 128 + signal }
            return status
        }

        public var description: String {
            switch self {
            case .exited(let code): "exit status \(code)"
            case .signalled(let signal): "killed by signal \(signal)"
            case .lost: "reaped elsewhere (status lost)"
            }
        }
    }

    /// What `run` collected.
    public struct Outcome: Sendable {
        public var termination: Termination
        public var stdout: String
        public var stderr: String
        /// The time limit passed and the child was killed.
        public var timedOut: Bool
        public var status: Int32 { termination.status }
    }

    /// CPU time and peak memory of a reaped child (wait4's rusage).
    public struct Usage: Sendable, Hashable {
        /// CPU seconds in user mode.
        public var userSeconds: Double
        /// CPU seconds in the kernel on its behalf.
        public var systemSeconds: Double
        /// `ru_maxrss` in bytes. On Linux it is the larger of the child's own peak and the
        /// parent's peak at spawn (the spawned child shares the parent's memory until exec).
        public var maxRSSBytes: Int
    }

    public let pid: Int32
    public let executable: String
    /// Whether it leads a process group of its own (`spawn(ownProcessGroup:)`).
    public let ownProcessGroup: Bool
    /// The write end of its stdin pipe (`Input.pipe`); the caller owns and closes it.
    public let input: Int32?
    /// The read end of its stdout pipe (`Output.pipe`); the caller owns and closes it.
    public let output: Int32?
    /// The read end of its stderr pipe (`Output.pipe`); the caller owns and closes it.
    public let errorOutput: Int32?
    /// How it ended and what it used, once reaped. Signals are sent under this lock, so
    /// never to a pid that was reaped and may have been reused.
    private let ended = Mutex<(Termination, Usage)?>(nil)

    init(pid: Int32, executable: String, ownProcessGroup: Bool, input: Int32?, output: Int32?, errorOutput: Int32?) {
        self.pid = pid
        self.executable = executable
        self.ownProcessGroup = ownProcessGroup
        self.input = input
        self.output = output
        self.errorOutput = errorOutput
    }

    /// How it ended, once it has; nil while it runs. Never blocks.
    public var termination: Termination? {
        ended.withLock { Self.reap(pid, &$0)?.0 }
    }

    /// Its CPU time and peak memory, once it has ended; nil while it runs.
    public var usage: Usage? {
        ended.withLock { Self.reap(pid, &$0)?.1 }
    }

    public var isRunning: Bool { termination == nil }

    /// Blocks this thread until it ends (keep it off Swift's cooperative pool).
    @discardableResult
    public func waitForExit() -> Termination {
        while true {
            if let done = termination { return done }
            var info = siginfo_t()
            // Waits without reaping, so `termination` reaps under its lock.
            let waited = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT)
            if waited != 0, errno != EINTR { usleep(10_000) }
        }
    }

    /// Waits for the end without holding a thread of Swift's cooperative pool (the wait
    /// blocks a thread of `OffPool`'s).
    @discardableResult
    public func exit() async -> Termination {
        await OffPool.run { self.waitForExit() }
    }

    /// Sends `signal` (SIGTERM by default) unless it has ended.
    public func send(_ signal: Int32 = SIGTERM) {
        ended.withLock { if Self.reap(pid, &$0) == nil { kill(pid, signal) } }
    }

    /// Sends `signal` to its whole process group (it and every process it started that
    /// stayed in the group) while it has not been reaped: the group id cannot have been
    /// reused. Nothing without `ownProcessGroup`.
    public func signalGroup(_ signal: Int32 = SIGTERM) {
        guard ownProcessGroup else { return }
        ended.withLock { if Self.reap(pid, &$0) == nil { kill(-pid, signal) } }
    }

    /// Sends `signal` to what is left of its process group after it ended (children a
    /// command left behind); harmless when nothing is left. Nothing without `ownProcessGroup`.
    ///
    /// Once it is reaped, not when a process runs under its old number: while any member
    /// of the group lives the kernel does not hand that number out again, so a process
    /// holding it means the group is gone and the number (pid_max may be 32768) may now
    /// lead a stranger's group.
    public func signalStragglers(_ signal: Int32 = SIGKILL) {
        guard ownProcessGroup else { return }
        ended.withLock { known in
            // Not reaped yet: the group is still this child's, leader included.
            if known == nil, Self.reap(pid, &known) == nil {
                _ = kill(-pid, signal)
                return
            }
            if kill(pid, 0) == 0 || errno != ESRCH { return }
            _ = kill(-pid, signal)
        }
    }

    /// Runs `executable` to its end, or kills it (SIGKILL) after `timeout`; its stdout
    /// and stderr as text. Waits on a thread outside the cooperative pool, and the time
    /// limit is a `Timekeeper` timer: neither needs a free pool thread.
    /// `environment` adds variables to the caller's; with `ownProcessGroup`, the time limit
    /// kills the child's whole group (a shell command's children too).
    public static func run(
        _ executable: String, _ arguments: [String], directory: String? = nil, timeout: Duration? = nil,
        environment: [String: String] = [:], ownProcessGroup: Bool = false
    ) async throws(ChildProcessError) -> Outcome {
        let running = try Running(
            executable, arguments, directory: directory, timeout: timeout, environment: environment,
            ownProcessGroup: ownProcessGroup)
        return running.outcome(await running.child.exit())
    }

    /// `run`, blocking the calling thread until the child has ended: for callers already
    /// off Swift's cooperative pool (a dispatch queue, an `OffPool` closure).
    public static func runWaiting(
        _ executable: String, _ arguments: [String], directory: String? = nil, timeout: Duration? = nil,
        environment: [String: String] = [:], ownProcessGroup: Bool = false
    ) throws(ChildProcessError) -> Outcome {
        let running = try Running(
            executable, arguments, directory: directory, timeout: timeout, environment: environment,
            ownProcessGroup: ownProcessGroup)
        return running.outcome(running.child.waitForExit())
    }

    /// A child of `run`: its output files and its time limit's watchdog.
    private struct Running {
        let child: ChildProcess
        let paths: (out: String, err: String)
        let killed = KilledFlag()
        let watchdog: Timekeeper.Timer?

        init(
            _ executable: String, _ arguments: [String], directory: String?, timeout: Duration?,
            environment: [String: String], ownProcessGroup: Bool
        ) throws(ChildProcessError) {
            let base = NSTemporaryDirectory() + "deadzone-child-\(UUID().uuidString)"
            let paths = (out: base + ".stdout", err: base + ".stderr")
            let child: ChildProcess
            do {
                child = try spawn(
                    executable, arguments, stdout: .file(paths.out), stderr: .file(paths.err), directory: directory,
                    ownProcessGroup: ownProcessGroup, environment: environment)
            } catch {
                for path in [paths.out, paths.err] { try? FileManager.default.removeItem(atPath: path) }
                throw error
            }
            let killed = killed
            self.child = child
            self.paths = paths
            watchdog = timeout.map { limit in
                Timekeeper.shared.schedule(after: limit) {
                    killed.value.withLock { $0 = child.isRunning }
                    child.signalGroup(SIGKILL)
                    child.send(SIGKILL)
                }
            }
        }

        /// The outcome once the child ended as `termination`; its output files are removed.
        func outcome(_ termination: Termination) -> Outcome {
            watchdog?.cancel()
            defer { for path in [paths.out, paths.err] { try? FileManager.default.removeItem(atPath: path) } }
            let text = { (path: String) in String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self) }
            return Outcome(
                termination: termination, stdout: text(paths.out), stderr: text(paths.err),
                timedOut: killed.value.withLock { $0 })
        }
    }

    /// Reaps `pid` into `known` if it has ended (wait4, WNOHANG); the ending, if known.
    private static func reap(_ pid: Int32, _ known: inout (Termination, Usage)?) -> (Termination, Usage)? {
        if let known { return known }
        var raw: Int32 = 0
        var rusage = rusage()
        var reaped = wait4(pid, &raw, WNOHANG, &rusage)
        while reaped < 0, errno == EINTR { reaped = wait4(pid, &raw, WNOHANG, &rusage) }
        let seconds = { (time: timeval) in Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        if reaped == pid {
            let signal = raw & 0x7F
            let usage = Usage(userSeconds: seconds(rusage.ru_utime), systemSeconds: seconds(rusage.ru_stime),
                              maxRSSBytes: rusage.ru_maxrss * 1024)  // KiB on Linux
            known = (signal == 0 ? .exited((raw >> 8) & 0xFF) : .signalled(signal), usage)
        } else if reaped < 0, errno == ECHILD {
            known = (.lost, Usage(userSeconds: 0, systemSeconds: 0, maxRSSBytes: 0))
        }
        return known
    }
}

/// Set by `run`'s watchdog when it kills a child that was still running.
private final class KilledFlag: Sendable {
    let value = Mutex(false)
}

/// A child process could not be started.
public struct ChildProcessError: Error, Sendable, CustomStringConvertible {
    public var executable: String
    public var reason: String

    public var description: String {
        "cannot start \(executable): \(reason)"
    }
}
