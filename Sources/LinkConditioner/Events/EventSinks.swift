import Dispatch
import BenchCore
import Foundation
import Synchronization

/// Receives events on the loop thread. Implementations must return quickly.
public protocol EventSink: Sendable {
    func record(_ event: ConditionerEvent)
}

/// Writes each event as one JSON line to a file, off the loop thread.
///
/// Encoding and writing happen on a private serial queue so the loop never
/// waits for the disk. Call `close()` (or `flush()`) before reading the file.
public final class JSONLinesEventWriter: EventSink {
    private let queue = DispatchQueue(label: "deadzone.events.writer")
    private let handle: Mutex<FileHandle?>
    private let failure = Mutex<WriteFailure?>(nil)
    public let path: String

    /// The first write that failed (a full disk, an I/O error) and how many events were
    /// lost from then on; nil while every event reached the file. What was written before
    /// the failure stays in the file.
    public struct WriteFailure: Sendable, Hashable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var lostEvents: Int

        public var description: String {
            "the event log \(path) stopped at a failed write (\(reason)): \(lostEvents) event(s) lost; "
                + "the lines before them are intact. Free space on its disk or choose another --events path"
        }
    }

    /// Creates (or truncates) the file at `path` and writes to it in place (a device or
    /// a pipe given as the path is written to, not replaced).
    /// - Throws: `CocoaError` when the file cannot be opened; the message names the path.
    public init(path: String) throws {
        self.path = path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path,
                             NSLocalizedDescriptionKey: "cannot create event log at \(path): \(String(cString: strerror(errno)))"])
        }
        handle = Mutex(FileHandle(fileDescriptor: fd, closeOnDealloc: true))
    }

    public func record(_ event: ConditionerEvent) {
        queue.async { [self] in
            guard var line = try? Self.encoder.encode(event) else { return }
            line.append(0x0A)
            // After a failed write the log stops (a line after a gap would mislead a
            // reader) and counts what it loses.
            let stopped = failure.withLock { failed in
                guard failed != nil else { return false }
                failed?.lostEvents += 1
                return true
            }
            if stopped { return }
            handle.withLock { file in
                do { try file?.write(contentsOf: line) } catch {
                    failure.withLock { $0 = WriteFailure(path: path, reason: Self.reason(error), lostEvents: 1) }
                }
            }
        }
    }

    /// The system's words for a failed write ("No space left on device").
    private static func reason(_ error: any Error) -> String {
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return (error as NSError).localizedDescription
    }

    /// The first failed write, once every event recorded so far has been handled.
    public var writeFailure: WriteFailure? {
        queue.sync { failure.withLock { $0 } }
    }

    /// Waits until every recorded event is on disk.
    public func flush() {
        queue.sync { handle.withLock { try? $0?.synchronize() } }
    }

    public func close() {
        queue.sync { handle.withLock { try? $0?.close(); $0 = nil } }
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

/// Keeps events in memory; for tests and for in-process consumers such as the harness.
public final class EventCollector: EventSink {
    private let events = Mutex<[ConditionerEvent]>([])

    public init() {}

    public func record(_ event: ConditionerEvent) {
        events.withLock { $0.append(event) }
    }

    /// Everything recorded so far, in order.
    public var all: [ConditionerEvent] { events.withLock { $0 } }

    /// Waits (polling every 5 ms, on `Timekeeper` timers) until `predicate` holds over the
    /// events, or `timeout` passes. Returns whether it held.
    public func wait(timeout: Duration = .seconds(60),
                     until predicate: ([ConditionerEvent]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if predicate(all) { return true }
            _ = try? await Timekeeper.shared.sleep(for: .milliseconds(5))
        }
        return predicate(all)
    }
}

/// Sends events to several sinks.
public struct FanOutSink: EventSink {
    public var sinks: [any EventSink]

    public init(_ sinks: [any EventSink]) { self.sinks = sinks }

    public func record(_ event: ConditionerEvent) {
        for sink in sinks { sink.record(event) }
    }
}
