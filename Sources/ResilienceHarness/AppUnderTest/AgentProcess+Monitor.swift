import AppProtocol
import BenchCore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The monitor thread: reads the agent's stdout until it closes, samples its memory
/// meanwhile, then reaps it and fails what still waits. It owns the stdout descriptor
/// and its line buffer.
extension AgentProcess {
    /// Runs on the monitor thread, from launch until the agent is reaped.
    func monitor(stdout descriptor: Int32) {
        var splitter = AppLineSplitter()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let clock = MonotonicClock()
        var lastSample: UInt64 = 0
        while true {
            if clock.nowNanoseconds - lastSample >= 50_000_000 {
                sampleRSS()
                lastSample = clock.nowNanoseconds
            }
            let ready = poll(&poller, 1, 50)
            if ready == 0 || (ready < 0 && errno == EINTR) { continue }
            guard ready > 0 else { break }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { break }  // end of stdout: the agent is exiting
            for line in splitter.append(buffer[..<count]) { deliver(line) }
        }
        if let last = splitter.finish() { deliver(last) }
        // Under the lock `disconnect` takes: it never shuts down a number reused since.
        state.withLock { state in
            state.connectionClosed = true
            close(descriptor)
        }
        sampleRSS()
        reap()
    }

    /// Hands one stdout line on: an event to `onEvent`, a reply to its `send`. A line
    /// that breaks the protocol (`AppProtocolSchema`), or a reply to an id never sent,
    /// ends the app (`breakProtocol`); every line after it is dropped.
    private func deliver(_ line: String) {
        let number: Int? = state.withLock { state in
            state.linesRead += 1
            return state.violation == nil ? state.linesRead : nil
        }
        guard let number, !line.allSatisfy(\.isWhitespace) else { return }
        let (violation, decoded) = AppProtocolSchema.violation(inLine: line, number: number)
        guard let message = decoded else {
            if let violation { breakProtocol(violation) }
            return
        }
        switch message {
        case .event(let t, let event):
            onEvent(t, event)
        case .reply(let reply):
            let (waiting, late, answered) = state.withLock {
                ($0.pending.removeValue(forKey: reply.id), $0.expired.contains(reply.id), $0.onReply.removeValue(forKey: reply.id))
            }
            guard let waiting else {
                if late { return note("late reply to request \(reply.id), after its time limit: \(reply.error ?? "\(reply.value)")") }
                return breakProtocol(ProtocolViolation(
                    lineNumber: number, line: line,
                    problem: "a reply to id \(reply.id), which the harness never sent or which was answered already "
                        + "(each command gets exactly one reply, with its id)",
                    schemaPath: nil))
            }
            answered?()
            waiting.resume(returning: reply.error.map { .failure(.refused($0)) } ?? .success(reply.value))
        }
    }

    /// Records the app's first protocol violation, fails every pending `send` with it,
    /// kills what the harness can reach of the app and ends its connection (reaping then
    /// follows as for any kill).
    func breakProtocol(_ violation: ProtocolViolation) {
        let pending = state.withLock { state -> [CheckedContinuation<Result<AppReplyValue, AgentProcessError>, Never>] in
            guard state.violation == nil else { return [] }
            state.violation = violation
            _ = signalApp(&state)
            defer { (state.pending, state.onReply) = ([:], [:]) }
            return Array(state.pending.values)
        }
        disconnect()
        for send in pending { send.resume(returning: .failure(.protocolViolation(violation))) }
    }

    private func note(_ diagnostic: String) {
        state.withLock { state in
            if state.diagnostics.count < 1000 { state.diagnostics.append(diagnostic) }
        }
    }

    /// Raises `peakRSSBytes` to the agent's VmHWM (`/proc/<pid>/status`), if readable.
    /// Only called before reaping, so the pid is still the agent's (a zombie has none).
    func sampleRSS() {
        guard let text = Self.contents(of: "/proc/\(pid)/status"),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return }
        state.withLock { $0.peakRSSBytes = max($0.peakRSSBytes, kilobytes * 1024) }
    }

    /// Waits for the agent to exit, reaps it, records its status and peak memory, and
    /// fails every pending `send` and releases every exit waiter.
    private func reap() {
        if socket != nil {
            // The launched process is the app (it ends with its connection) or a launcher (it
            // ended already, or ends with the app); one that runs on after 5 s is ended.
            let clock = MonotonicClock()
            let start = clock.nowNanoseconds
            var poller = pollfd(fd: -1, events: 0, revents: 0)
            while child.isRunning, clock.nowNanoseconds - start < 5_000_000_000 { _ = poll(&poller, 1, 20) }
            child.signalGroup(SIGKILL)
            child.send(SIGKILL)
        }
        // The shell's form: the exit code, or 128 + the signal; -1 when reaped elsewhere.
        let status = child.waitForExit().shellStatus
        let (pending, waiters, violation) = state.withLock { state in
            state.exitStatus = status
            defer {
                state.pending = [:]
                state.onReply = [:]
                state.exitWaiters = [:]
            }
            return (Array(state.pending.values), Array(state.exitWaiters.values), state.violation)
        }
        closeInput()
        let failure = violation.map(AgentProcessError.protocolViolation) ?? .exited(status: status)
        for send in pending { send.resume(returning: .failure(failure)) }
        for waiter in waiters { waiter.resume() }
    }

    /// The whole of a (proc) file, read with read(2): its size is not known in advance.
    static func contents(of path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
