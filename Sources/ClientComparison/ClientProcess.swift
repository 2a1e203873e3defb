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
    public var pid: Int32 { child.pid }
    private let child: ChildProcess
    private let registry: ClientRegistry

    private init(child: ChildProcess, registry: ClientRegistry) {
        self.child = child
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
        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(
                argv[0], Array(argv.dropFirst()), stdout: .append(stdoutPath), stderr: .append(stderrPath),
                ownProcessGroup: true)
        } catch {
            throw .cannotStart(executable: argv[0], reason: error.reason)
        }
        registry.started(child)
        return ClientProcess(child: child, registry: registry)
    }

    /// The exit status once the process has ended (the exit code, or 128 + the signal
    /// that ended it; -1 if it was reaped elsewhere), nil while it runs. Reaps it on the
    /// first call after it ended.
    public func poll() -> Int32? {
        guard let termination = child.termination else { return nil }
        registry.reaped(child)
        return termination.shellStatus
    }

    /// SIGKILLs the whole process group and waits (at most `timeout`) for the leader to
    /// be reaped; returns its status (nil if it did not end in time, which SIGKILL makes
    /// all but impossible).
    @discardableResult
    public func killGroup(timeout: Duration = .seconds(10)) async -> Int32? {
        child.signalGroup(SIGKILL)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = poll() { return status }
            _ = try? await Timekeeper.shared.sleep(for: .milliseconds(10))
        }
        return poll()
    }

    /// SIGKILLs whatever is left of the process group (children a client left behind
    /// after its leader exited). Harmless when nothing is left.
    public func killStragglers() {
        child.signalStragglers(SIGKILL)
    }
}

/// The client processes started and not yet reaped, so that an interrupted comparison
/// can kill them all (`bench compare` uses `shared`).
public final class ClientRegistry: Sendable {
    /// The registry of this process's comparisons.
    public static let shared = ClientRegistry()
    private let live = Mutex<[Int32: ChildProcess]>([:])

    /// An empty registry (tests).
    public init() {}

    func started(_ child: ChildProcess) { live.withLock { $0[child.pid] = child } }
    func reaped(_ child: ChildProcess) { live.withLock { _ = $0.removeValue(forKey: child.pid) } }

    /// SIGKILLs the process group of every client still running: what `bench compare`
    /// does when it is interrupted, so that no client outlives it.
    public func killEveryGroup() {
        for child in live.withLock({ Array($0.values) }) { child.signalGroup(SIGKILL) }
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

extension ClientRegistry {
    /// On SIGINT or SIGTERM: kills every client still running (each is in a process group
    /// of its own, so a terminal's Ctrl-C does not reach it), then calls `then` (which
    /// ends the process). `bench compare` keeps the returned sources until it is done.
    public func killEveryGroupOnInterrupt(then: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                self.killEveryGroup()
                then()
            }
            source.resume()
            return source
        }
    }
}
