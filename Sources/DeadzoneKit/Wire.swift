import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The host's CLOCK_MONOTONIC in nanoseconds: the clock every part of a run stamps its events with.
func monotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}

/// RFC 3339 in UTC, as the protocol writes dates.
func rfc3339(_ date: Date) -> String { date.formatted(.iso8601) }

/// A diagnostic line on stderr (the harness keeps each launch's stderr in the report).
func diagnose(_ text: String) {
    FileHandle.standardError.write(Data("DeadzoneKit: \(text)\n".utf8))
}

/// Writes whole JSON lines to the harness, one at a time, from any thread.
// @unchecked: `closedBecause` is read and written only under `lock`; the rest is `let`.
final class LineWriter: @unchecked Sendable {
    private let descriptor: Int32
    private let isSocket: Bool
    private let lock = NSLock()
    private var closedBecause: String?

    init(descriptor: Int32, isSocket: Bool) {
        self.descriptor = descriptor
        self.isSocket = isSocket
    }

    /// Serialises `object` (keys sorted) and writes it with its `\n`.
    func write(_ object: [String: Any]) throws(KitError) {
        let data: Data
        do {
            data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        } catch {
            throw .invalid("the line cannot be written as JSON: \(error)")
        }
        try write(Array(data) + [10])
    }

    func write(_ bytes: [UInt8]) throws(KitError) {
        lock.lock()
        defer { lock.unlock() }
        if let closedBecause { throw .harnessGone(closedBecause) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                #if canImport(Glibc)
                return isSocket ? send(descriptor, base, raw.count, Int32(MSG_NOSIGNAL)) : Glibc.write(descriptor, base, raw.count)
                #else
                return isSocket ? send(descriptor, base, raw.count, 0) : Darwin.write(descriptor, base, raw.count)
                #endif
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else {
                let why = String(cString: strerror(errno))
                closedBecause = why
                throw .harnessGone(why)
            }
            offset += written
        }
    }
}

/// Reads `\n`-ended lines from a descriptor (a `\r` before the `\n` is dropped; blank
/// lines are skipped). Blocking: runs on the kit's command thread.
struct LineReader {
    let descriptor: Int32
    private var pending: [UInt8] = []
    private var ended = false

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// The next line, nil once the input ended.
    mutating func next() -> String? {
        while true {
            if let newline = pending.firstIndex(of: 10) {
                var line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                if line.last == 13 { line.removeLast() }
                if line.isEmpty { continue }
                return String(decoding: line, as: UTF8.self)
            }
            if ended {
                guard !pending.isEmpty else { return nil }
                defer { pending.removeAll() }
                return String(decoding: pending, as: UTF8.self)
            }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { ended = true } else { pending.append(contentsOf: buffer[..<count]) }
        }
    }
}
