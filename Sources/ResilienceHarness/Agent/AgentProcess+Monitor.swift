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
        close(descriptor)
        sampleRSS()
        reap()
    }

    /// Hands one stdout line on: an event to `onEvent`, a reply to its `send`;
    /// anything else becomes a diagnostic.
    private func deliver(_ line: String) {
        guard !line.allSatisfy(\.isWhitespace) else { return }
        let message: AppMessage
        do { message = try AppWire.decode(AppMessage.self, from: line) } catch {
            note("not a protocol line: \(error)")
            return
        }
        switch message {
        case .event(let t, let event):
            onEvent(t, event)
        case .reply(let reply):
            guard let waiting = state.withLock({ $0.pending.removeValue(forKey: reply.id) }) else {
                note("reply to request \(reply.id), which nothing awaits: \(reply.error ?? "\(reply.value)")")
                return
            }
            waiting.resume(returning: reply.error.map { .failure(.refused($0)) } ?? .success(reply.value))
        }
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
        // The shell's form: the exit code, or 128 + the signal; -1 when reaped elsewhere.
        let status = child.waitForExit().shellStatus
        let (pending, waiters) = state.withLock { state in
            state.exitStatus = status
            defer {
                state.pending = [:]
                state.exitWaiters = [:]
            }
            return (Array(state.pending.values), Array(state.exitWaiters.values))
        }
        closeInput()
        for send in pending { send.resume(returning: .failure(.exited(status: status))) }
        for waiter in waiters { waiter.resume() }
    }

    /// The whole of a (proc) file, read with read(2): its size is not known in advance.
    private static func contents(of path: String) -> String? {
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
