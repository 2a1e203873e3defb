import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, its stdin `/dev/null` and its stdout and
/// stderr written to files (or discarded).
///
/// Foundation's `Process` is not used: on Linux with Swift 6.3.1 its `run()` reads
/// `/proc/self/fd` entries past the end of glibc's buffer and now and then crashes the
/// whole process (swift-corelibs-foundation PR 5472, fixed after that release); a test
/// suite or a harness that starts hundreds of children meets it. Here the child closes
/// every inherited descriptor above 2, listed through `FileManager`, so it holds no
/// other child's pipes or sockets.
public final class ChildProcess: Sendable {
    /// How a child ended.
    public enum Termination: Sendable, Hashable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        /// The exit status, or the signal's number (as Foundation's `terminationStatus`).
        public var status: Int32 {
            switch self {
            case .exited(let code), .signalled(let code): code
            }
        }

        public var description: String {
            switch self {
            case .exited(let code): "exit status \(code)"
            case .signalled(let signal): "killed by signal \(signal)"
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

    public let pid: Int32
    public let executable: String
    private let ended = Mutex<Termination?>(nil)

    private init(pid: Int32, executable: String) {
        self.pid = pid
        self.executable = executable
    }

    /// Starts `executable` (a path) with `arguments` and the caller's environment.
    /// `stdout` and `stderr` name files to create or truncate (nil: `/dev/null`; the same
    /// path for both interleaves them); `directory` is the child's working directory.
    /// - Throws: `ChildProcessError` when it cannot start, with the system's reason.
    public static func spawn(
        _ executable: String, _ arguments: [String], stdout: String? = nil, stderr: String? = nil,
        directory: String? = nil
    ) throws(ChildProcessError) -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let create = O_WRONLY | O_CREAT | O_TRUNC
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout ?? "/dev/null", create, 0o644)
        if let stderr, stderr == stdout {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, stderr ?? "/dev/null", create, 0o644)
        }
        let inherited = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
        for fd in inherited where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        setShellLikeSignals(&attributes)

        // posix_spawn cannot change directory here (no addchdir in Swift's Glibc module):
        // coreutils' `env -C` does it, then runs the executable.
        let command = directory.map { ["/usr/bin/env", "-C", $0, "--", executable] } ?? [executable]
        let argv: [UnsafeMutablePointer<CChar>?] = (command + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, command[0], &actions, &attributes, argv, environ)
        guard status == 0 else { throw ChildProcessError(executable: executable, reason: String(cString: strerror(status))) }
        return ChildProcess(pid: pid, executable: executable)
    }

    /// Sets `attributes` so that a child starts as if from a shell: no signal blocked,
    /// SIGPIPE at its default (the bench itself ignores it); with `ownProcessGroup`, in
    /// a process group of its own. Shared by every posix_spawn in the package.
    public static func setShellLikeSignals(_ attributes: inout posix_spawnattr_t, ownProcessGroup: Bool = false) {
        var none = sigset_t()
        sigemptyset(&none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if ownProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
    }

    /// How it ended, once it has; nil while it runs. Never blocks.
    public var termination: Termination? {
        ended.withLock { known in
            if let known { return known }
            var raw: Int32 = 0
            var reaped = waitpid(pid, &raw, WNOHANG)
            while reaped < 0, errno == EINTR { reaped = waitpid(pid, &raw, WNOHANG) }
            guard reaped == pid else { return nil }
            known = Self.decode(raw)
            return known
        }
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

    /// Waits for the end without holding a thread of Swift's cooperative pool.
    public func exit() async -> Termination {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.waitForExit()) }.start()
        }
    }

    /// Sends `signal` (SIGTERM by default) unless it has ended.
    public func send(_ signal: Int32 = SIGTERM) {
        if isRunning { kill(pid, signal) }
    }

    /// Runs `executable` to its end, or kills it (SIGKILL) after `timeout`; its stdout
    /// and stderr as text. Waits on a thread of its own.
    public static func run(
        _ executable: String, _ arguments: [String], directory: String? = nil, timeout: Duration? = nil
    ) async throws(ChildProcessError) -> Outcome {
        let base = NSTemporaryDirectory() + "deadzone-child-\(UUID().uuidString)"
        let paths = (out: base + ".stdout", err: base + ".stderr")
        defer { for path in [paths.out, paths.err] { try? FileManager.default.removeItem(atPath: path) } }
        let child = try spawn(executable, arguments, stdout: paths.out, stderr: paths.err, directory: directory)
        let killed = KilledFlag()
        let watchdog = timeout.map { limit in
            Task {
                try await Task.sleep(for: limit)
                killed.value.withLock { $0 = child.isRunning }
                child.send(SIGKILL)
            }
        }
        let termination = await child.exit()
        watchdog?.cancel()
        let timedOut = killed.value.withLock { $0 }
        let text = { (path: String) in String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self) }
        return Outcome(termination: termination, stdout: text(paths.out), stderr: text(paths.err), timedOut: timedOut)
    }

    private static func decode(_ raw: Int32) -> Termination {
        let signal = raw & 0x7F
        return signal == 0 ? .exited((raw >> 8) & 0xFF) : .signalled(signal)
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
