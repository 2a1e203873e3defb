import AppProtocol
import BenchCore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The agent's stdout: one `AppMessage` per line, each written whole with write(2)
/// on fd 1 (no buffering), so the harness reads it the moment it is written.
///
/// Any task or thread may call it. Every line goes through one lock, and an event's
/// `t` is read under that lock, so the lines are in `t` order and never interleave:
/// writing the line is the lock's only job, the one place I/O under a lock is meant.
final class AgentOutput: Sendable {
    /// Held while a line is written; keeps the state each download was last written in.
    private let lock = Mutex<[String: AppState]>([:])
    private let clock: any TraceClock
    private let descriptor: Int32

    /// Writes to `descriptor` (1: stdout), stamping events with `clock`.
    init(descriptor: Int32 = 1, clock: any TraceClock = MonotonicClock()) {
        self.descriptor = descriptor
        self.clock = clock
    }

    /// Writes `event`, stamped now.
    func event(_ event: AppEvent) {
        write { .event(t: clock.nowNanoseconds, event) }
    }

    /// Writes the reply to request `id`.
    func reply(id: Int, value: AppReplyValue = .done, error: String? = nil) {
        write { .reply(AppReply(id: id, value: value, error: error)) }
    }

    /// For each download last written in `state` (of `only`, when given), writes the
    /// events `make` gives it, all under one hold of the lock, and only if `when` holds
    /// then: no other line comes between the check and them (a misbehaving variant's
    /// claims must start from what the harness last read).
    func events(
        forDownloadsIn state: AppState, only: Set<String>? = nil, when: () -> Bool = { true },
        _ make: (String) -> [AppEvent]
    ) {
        lock.withLock { states in
            guard when() else { return }
            for download in states.filter({ $0.value == state && only?.contains($0.key) != false }).keys.sorted() {
                for event in make(download) { Self.write(.event(t: clock.nowNanoseconds, event), to: descriptor, &states) }
            }
        }
    }

    private func write(_ message: () -> AppMessage) {
        lock.withLock { states in Self.write(message(), to: descriptor, &states) }
    }

    private static func write(_ value: AppMessage, to descriptor: Int32, _ states: inout [String: AppState]) {
        let line: Data
        do { line = try AppWire.line(value) } catch {
            AgentLog.write("cannot encode \(value): \(error)")
            return
        }
        if case .event(_, .stateChanged(let download, _, let to)) = value { states[download] = to }
        line.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else {
                    AgentLog.write("stdout failed (\(String(cString: strerror(errno)))); a line was lost")
                    return
                }
                offset += written
            }
        }
    }
}

/// Diagnostics of the agent for people: stderr only, never stdout (the protocol's).
enum AgentLog {
    /// Writes `message` as one line `agent[pid]: message` on stderr.
    static func write(_ message: String) {
        let line = Array("agent[\(getpid())]: \(message)\n".utf8)
        line.withUnsafeBytes { _ = systemWrite(2, $0.baseAddress!, $0.count) }
    }
}

/// write(2), named apart from the `write` methods that call it.
func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
