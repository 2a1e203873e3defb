import AppProtocol
import BenchCore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The harness's handle on one app process (any executable that speaks the app
/// protocol; Deadzone's own engine is `bench agent`): starts it, says `hello`, sends it
/// commands and matches the replies, hands its events to `onEvent`, samples its
/// memory, and kills or shuts it down.
///
/// The app is a child process on stdin/stdout pipes, or one a launch command started
/// that connected over TCP to an `AppListener` (`AppLaunch`); the lines are the same.
///
/// Ownership: the handle owns the process and both pipes (or the connection). A monitor
/// thread of its own reads the agent's stdout (or its connection), calls `onEvent` for every event (on that thread, in the
/// order written; keep the callback short), resumes the `send` a reply answers, and
/// reaps the process when it exits; it keeps the handle alive until then. Request lines
/// are written by a serial queue of the handle's (`writer`), so a caller never blocks
/// on a full pipe, and time limits are `Timekeeper` timers: none of the protocol's
/// reading, writing or deadlines needs Swift's cooperative pool. The agent's
/// stderr goes to a file (`stderrPath`), kept after the process ends, so that what it
/// logged can be read or attached to a report. Every method may be called from any
/// task or thread.
///
/// Launching makes the harness process ignore SIGPIPE (process-wide): a write to an
/// agent that died must fail with an error, not end the harness.
public final class AgentProcess: Sendable {
    /// The agent's process id.
    public var pid: Int32 { child.pid }
    /// The process (BenchCore's `ChildProcess`): in a process group of its own, its stdin
    /// and stdout pipes to this handle.
    let child: ChildProcess
    /// The file the agent's stderr appends to.
    public let stderrPath: String
    /// `stderrPath` is a temporary file of this handle's own (no path was given): it is
    /// removed with the handle, so that nothing is left in the temporary directory.
    let ownsStderrFile: Bool
    let onEvent: @Sendable (_ t: UInt64, _ event: AppEvent) -> Void
    let state: Mutex<State>
    /// The write end of the agent's stdin, -1 once closed; only `writer` touches it.
    let input: Mutex<Int32>
    /// Writes request lines, whole and in call order, then closes stdin (`closeInput`).
    let writer: DispatchQueue
    /// The app's connection when it connected over TCP (`AppLaunch.listener`): the
    /// monitor reads it and `input` writes a duplicate of it; nil on stdin/stdout.
    let socket: Int32?
    /// What a crash runs instead of SIGKILL (`AppLaunch.killCommand`).
    let killCommand: String?
    /// The `AppLaunch.Variable`s the launch was given; a kill command gets them too.
    let environment: [String: String]

    struct State {
        var nextRequestID = 1
        var pending: [Int: CheckedContinuation<Result<AppReplyValue, AgentProcessError>, Never>] = [:]
        /// What to run, on the monitor thread, as the reply to a request is read.
        var onReply: [Int: @Sendable () -> Void] = [:]
        /// The app's answer to `hello`, once it came.
        var hello: AppHello?
        /// When that answer was read, by the launch's `now`.
        var helloAnsweredAt: UInt64?
        var nextWaiterID = 0
        var exitWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Set when the process is reaped; its pid may then belong to another process.
        var exitStatus: Int32?
        var peakRSSBytes = 0
        var diagnostics: [String] = []
        /// Lines read from the app's stdout so far (blank ones included).
        var linesRead = 0
        /// Requests whose time limit passed: a late reply to one is a diagnostic.
        var expired: Set<Int> = []
        /// The first way the app broke the protocol; the app is killed then.
        var violation: ProtocolViolation?
        /// The pid the hello gave, once checked to hold the app's connection: killed with
        /// the launched process group on a crash.
        var connectedPID: Int32?
        /// The monitor closed the app's connection (`socket`): its number may be reused.
        var connectionClosed = false
    }

    init(
        child: ChildProcess, stdin: Int32, stderrPath: String, ownsStderrFile: Bool, socket: Int32? = nil,
        killCommand: String? = nil, environment: [String: String] = [:], onEvent: @escaping @Sendable (UInt64, AppEvent) -> Void
    ) {
        self.child = child
        self.stderrPath = stderrPath
        self.ownsStderrFile = ownsStderrFile
        self.onEvent = onEvent
        self.socket = socket
        self.killCommand = killCommand
        self.environment = environment
        state = Mutex(State())
        input = Mutex(stdin)
        writer = DispatchQueue(label: "agent-\(child.pid)-stdin")
    }

    deinit {
        if ownsStderrFile { try? FileManager.default.removeItem(atPath: stderrPath) }
    }

    /// Starts `executable` with `arguments` (e.g. `bench`, `["agent"]`) on stdin/stdout and
    /// says `hello`: `launch(_:…)` with `AppLaunch(command:)`.
    public static func launch(
        executable: String, arguments: [String], storage: String, after: RelaunchKind, stderrPath: String? = nil,
        helloTimeout: Duration = AgentProcess.helloTimeout, onEvent: @escaping @Sendable (_ t: UInt64, _ event: AppEvent) -> Void
    ) async throws(AgentProcessError) -> AgentProcess {
        try await launch(
            AppLaunch(command: AppCommandLine(executable: executable, arguments: arguments)), storage: storage, after: after,
            stderrPath: stderrPath, helloTimeout: helloTimeout, onEvent: onEvent)
    }

    /// Starts the app as `launch` says (its `AppLaunch.Variable`s in its environment),
    /// waits for its connection when it connects over TCP, and says `hello`: the protocol
    /// version, `storage` (the app's directory, kept across relaunches), how the
    /// previous process on it ended and, over HTTPS, the CA to trust (`AppLaunch.caFile`). Returns once the app answered with a hello of the
    /// same protocol version (`hello`). What the launched process writes on stderr (and,
    /// when the app connects over TCP, on stdout) appends to `stderrPath`, by default a new
    /// file in the temporary directory that goes with the handle. `onEvent` gets each event
    /// with the app's timestamp, on the monitor thread.
    /// - Throws: `.launchFailed` when the command cannot start or fails before connecting,
    ///   `.neverConnected`, `.protocolMismatch` for another version, `.refused`, `.exited`
    ///   or `.noHello` when no hello came (the app is killed then). `now` stamps the moment
    ///   hello's answer is read (`helloAnsweredAt`), on the thread that reads it.
    public static func launch(
        _ launch: AppLaunch, storage: String, after: RelaunchKind, stderrPath: String? = nil,
        helloTimeout: Duration = AgentProcess.helloTimeout,
        now: @escaping @Sendable () -> UInt64 = { MonotonicClock().nowNanoseconds },
        onEvent: @escaping @Sendable (_ t: UInt64, _ event: AppEvent) -> Void
    ) async throws(AgentProcessError) -> AgentProcess {
        let process = try await start(launch, storage: storage, after: after, stderrPath: stderrPath, connectTimeout: helloTimeout, onEvent: onEvent)
        do throws(AgentProcessError) {
            let reply: AppReplyValue
            do {
                reply = try await process.send(
                    .hello(protocol: AppProtocol.version, storage: storage, after: after, caFile: launch.caFile),
                    timeout: helloTimeout
                ) { [weak process] in
                    let t = now()
                    process?.state.withLock { $0.helloAnsweredAt = t }
                }
            } catch {
                switch error {
                case .timedOut: throw AgentProcessError.noHello(seconds: helloTimeout.seconds)
                case .refused(let why): throw AgentProcessError.protocolMismatch("it refused hello: \(why)")
                default: throw error
                }
            }
            guard case .hello(let hello) = reply else {
                throw AgentProcessError.protocolMismatch(
                    "it answered hello without \"protocol\", \"app\" and \"capabilities\"")
            }
            guard hello.protocolVersion == AppProtocol.version else {
                throw AgentProcessError.protocolMismatch("it speaks protocol \(hello.protocolVersion)")
            }
            process.state.withLock { $0.hello = hello }
            process.adopt(pid: hello.pid)
        } catch {
            try? await process.kill()
            throw error
        }
        return process
    }

    /// Starts the process on stdin/stdout, with no handshake.
    static func start(
        executable: String, arguments: [String], stderrPath: String? = nil,
        onEvent: @escaping @Sendable (_ t: UInt64, _ event: AppEvent) -> Void
    ) throws(AgentProcessError) -> AgentProcess {
        try startOnPipes(AppLaunch(command: AppCommandLine(executable: executable, arguments: arguments)), environment: [:],
                         stderrPath: stderrPath, onEvent: onEvent)
    }

    /// How long an app may take to answer `hello` unless told otherwise.
    public static let helloTimeout = Duration.seconds(30)

    /// The app's answer to `hello`: its name, version and capabilities.
    public var hello: AppHello? { state.withLock { $0.hello } }

    /// When the harness read the app's answer to `hello`, by the `now` `launch` was given:
    /// the moment the app was up (its start-up, however slow the machine, is behind it).
    public var helloAnsweredAt: UInt64? { state.withLock { $0.helloAnsweredAt } }

    /// Sends `command` and waits for its reply, the agent's exit, or `timeout`.
    /// Requests are written in call order; replies may come in any order (matched by
    /// id). Cancelling the calling task does not end the wait early.
    /// `whenAnswered` runs on the thread that reads the app's output, as the reply is
    /// read and before any later line is: what it records is ordered against the app's
    /// events as the app wrote them (a reply to a request that timed out runs nothing).
    /// - Throws: `.refused` with the agent's error, `.exited` when it is gone,
    ///   `.timedOut`, or `.io` when the request cannot be written.
    public func send(
        _ command: AppCommand, timeout: Duration = .seconds(30), whenAnswered: (@Sendable () -> Void)? = nil
    ) async throws(AgentProcessError) -> AppReplyValue {
        let id = state.withLock { state in
            defer { state.nextRequestID += 1 }
            return state.nextRequestID
        }
        let line: Data
        do { line = try AppWire.line(AppRequest(id: id, command: command)) } catch {
            throw .io("cannot encode the \(command.name) request: \(error)")
        }
        var timer: Timekeeper.Timer?
        let result = await withCheckedContinuation { continuation in
            let ended: AgentProcessError? = state.withLock { state in
                if let violation = state.violation { return .protocolViolation(violation) }
                if let status = state.exitStatus { return .exited(status: status) }
                state.pending[id] = continuation
                state.onReply[id] = whenAnswered
                return nil
            }
            if let ended { return continuation.resume(returning: .failure(ended)) }
            // Weakly: a cancelled Dispatch timer keeps its block until its deadline, and the
            // handle (and its stderr file) must be able to go before that.
            timer = Timekeeper.shared.schedule(after: timeout) { [weak self] in
                guard let self else { return }
                let waiting = self.state.withLock { state in
                    state.pending[id] == nil ? false : state.expired.insert(id).inserted
                }
                if waiting { self.complete(id, with: .failure(.timedOut(command: command))) }
            }
            writer.async {
                if let failure = self.write(line) { self.complete(id, with: .failure(failure)) }
            }
        }
        timer?.cancel()
        return try result.get()
    }

    /// Asks the agent to shut down and waits for it to exit; SIGKILLs it when either
    /// takes longer than `timeout` in all. Returns its exit status.
    public func shutdown(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        _ = try? await send(.shutdown, timeout: timeout)
        closeInput()  // an agent that did not answer still sees the end of its input
        if await waitForExit(timeout: max(.zero, deadline - ContinuousClock.now)) == nil { try? await kill() }
        return exitStatus
    }

    /// Waits until the agent exits and is reaped, or `timeout` passes (nil: no limit).
    /// Returns its exit status, or nil on timeout.
    public func waitForExit(timeout: Duration? = nil) async -> Int32? {
        var timer: Timekeeper.Timer?
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let key: Int? = state.withLock { state in
                guard state.exitStatus == nil else { return nil }
                state.nextWaiterID += 1
                state.exitWaiters[state.nextWaiterID] = continuation
                return state.nextWaiterID
            }
            guard let key else { return continuation.resume() }
            if let timeout {
                timer = Timekeeper.shared.schedule(after: timeout) { [weak self] in  // weakly: see `send`
                    self?.state.withLock { $0.exitWaiters.removeValue(forKey: key) }?.resume()
                }
            }
        }
        timer?.cancel()
        return exitStatus
    }

    /// The largest resident set the agent has had, in bytes: VmHWM sampled about every
    /// 50 ms while it runs and once more before a kill. Not wait4's ru_maxrss: on Linux
    /// that is at least the harness's own peak at spawn time (the child starts as a copy).
    public var peakRSSBytes: Int { state.withLock { $0.peakRSSBytes } }
    /// Whether the agent has not been reaped yet.
    public var isRunning: Bool { state.withLock { $0.exitStatus == nil } }
    /// The exit status once reaped: the exit code, or 128 + the signal that ended it
    /// (137 for SIGKILL); -1 when it could not be learnt.
    public var exitStatus: Int32? { state.withLock { $0.exitStatus } }
    /// Late replies (to a request whose time limit had passed), in arrival order.
    public var diagnostics: [String] { state.withLock { $0.diagnostics } }
    /// The first way the app broke the protocol (it was killed then), if it did.
    public var protocolViolation: ProtocolViolation? { state.withLock { $0.violation } }

    /// Resumes the `send` waiting on `id` with `result`, if it still waits.
    func complete(_ id: Int, with result: Result<AppReplyValue, AgentProcessError>) {
        state.withLock { state in
            state.onReply.removeValue(forKey: id)
            return state.pending.removeValue(forKey: id)
        }?.resume(returning: result)
    }

    /// Writes `line` whole on the agent's stdin; the error when that failed. A broken
    /// pipe is no error here: the agent is exiting, and its reaping fails the send.
    /// Runs on `writer` only: it blocks while the pipe is full.
    func write(_ line: Data) -> AgentProcessError? {
        input.withLock { descriptor in
            guard descriptor >= 0 else { return .io("the agent's stdin is closed: it exited or was asked to shut down") }
            return line.withUnsafeBytes { bytes -> AgentProcessError? in
                var offset = 0
                while offset < bytes.count {
                    let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0, errno == EINTR { continue }
                    if written < 0, errno == EPIPE { return nil }
                    guard written > 0 else {
                        return .io("writing to the agent's stdin failed: \(String(cString: strerror(errno)))")
                    }
                    offset += written
                }
                return nil
            }
        }
    }

    /// Closes the agent's stdin (it then sees the end of its input) once the lines
    /// already sent are written.
    func closeInput() {
        writer.async {
            self.input.withLock { descriptor in
                if descriptor >= 0 { close(descriptor) }
                descriptor = -1
            }
        }
    }
}

/// write(2), named apart from the `write` methods that call it.
func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
