import BenchCore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One run of a client's command: `/bin/sh -c` in the work directory, in a process
/// group of its own (so a kill reaches every process it started), stdin from
/// `/dev/null`, stdout and stderr appended to files. Optionally under
/// `strace -f -e trace=connect` so that every connection attempt is recorded, refused
/// ones included (a userspace proxy never sees those).
///
/// The driver polls it (`poll()`); nothing runs in the background. Owned by one run;
/// methods may be called from any task.
public final class ClientProcess: Sendable {
    /// The process id, which is also the process group id.
    public let pid: Int32
    private let exit = Mutex<Int32?>(nil)
    private let registry: ClientRegistry

    private init(pid: Int32, registry: ClientRegistry) {
        self.pid = pid
        self.registry = registry
    }

    /// Starts `command` in `directory`.
    /// - Parameters:
    ///   - connectTrace: where strace writes the connection attempts, or nil to run
    ///     without strace.
    ///   - strace: the strace executable, when `connectTrace` is set.
    ///   - registry: where the process is listed until it is reaped.
    /// - Throws: `ClientProcessError` when the process cannot be started.
    public static func launch(
        command: String, directory: String, stdoutPath: String, stderrPath: String, connectTrace: String? = nil,
        strace: String = "strace", registry: ClientRegistry = .shared
    ) throws(ClientProcessError) -> ClientProcess {
        // The cd on a line of its own: `cd d && a & b` would run b elsewhere.
        let shellCommand = "cd \(ClientCommandLine.shellQuoted(directory)) || exit 127\n\(command)"
        var argv = ["/bin/sh", "-c", shellCommand]
        if let connectTrace {
            argv = [strace, "-f", "-qq", "--seccomp-bpf", "-e", "trace=connect", "-ttt", "-o", connectTrace] + argv
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        ChildProcess.setShellLikeSignals(&attributes, ownProcessGroup: true)
        let cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, argv[0], &actions, &attributes, cArguments, environ)
        guard status == 0 else {
            throw .cannotStart(executable: argv[0], reason: String(cString: strerror(status)))
        }
        registry.started(pid)
        return ClientProcess(pid: pid, registry: registry)
    }

    /// The exit status once the process has ended (the exit code, or 128 + the signal
    /// that ended it), nil while it runs. Reaps it on the first call after it ended.
    public func poll() -> Int32? {
        exit.withLock { exit in
            if let exit { return exit }
            var raw: Int32 = 0
            let reaped = waitpid(pid, &raw, WNOHANG)
            if reaped == pid {
                exit = Self.exitCode(raw)
            } else if reaped < 0, errno == ECHILD {
                exit = -1  // reaped elsewhere: the status is lost
            }
            if exit != nil { registry.reaped(pid) }
            return exit
        }
    }

    /// SIGKILLs the whole process group and waits (at most `timeout`) for the leader to
    /// be reaped; returns its status (nil if it did not end in time, which SIGKILL makes
    /// all but impossible).
    @discardableResult
    public func killGroup(timeout: Duration = .seconds(10)) async -> Int32? {
        if poll() == nil { _ = kill(-pid, SIGKILL) }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = poll() { return status }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return poll()
    }

    /// SIGKILLs whatever is left of the process group (children a client left behind
    /// after its leader exited). Harmless when nothing is left.
    public func killStragglers() {
        _ = kill(-pid, SIGKILL)
    }

    /// A wait status as a shell shows it: the exit code, or 128 + the signal number.
    static func exitCode(_ raw: Int32) -> Int32 {
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : 128 + signal
    }
}

/// The client processes started and not yet reaped, so that an interrupted comparison
/// can kill them all (`bench compare` uses `shared`).
public final class ClientRegistry: Sendable {
    /// The registry of this process's comparisons.
    public static let shared = ClientRegistry()
    private let live = Mutex<Set<Int32>>([])

    /// An empty registry (tests).
    public init() {}

    func started(_ pid: Int32) { live.withLock { _ = $0.insert(pid) } }
    func reaped(_ pid: Int32) { live.withLock { _ = $0.remove(pid) } }

    /// SIGKILLs the process group of every client still running: what `bench compare`
    /// does when it is interrupted, so that no client outlives it.
    public func killEveryGroup() {
        for pid in live.withLock({ $0 }) { _ = kill(-pid, SIGKILL) }
    }
}

/// Why a client could not be started.
public enum ClientProcessError: Error, Sendable, Hashable, CustomStringConvertible {
    case cannotStart(executable: String, reason: String)

    public var description: String {
        switch self {
        case let .cannotStart(executable, reason): "cannot start \(executable): \(reason)"
        }
    }
}
