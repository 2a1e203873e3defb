import Dispatch
import BenchCore
import Foundation
import Synchronization

/// Writes each event as one JSON line to a file, off the loop thread.
///
/// Encoding and writing happen on a private serial queue so the loop never
/// waits for the disk. Call `close()` (or `flush()`) before reading the file.
public final class JSONLinesEventWriter: EventSink {
    private let queue = DispatchQueue(label: "deadzone.events.writer")
    private let handle: Mutex<FileHandle?>
    public let path: String

    /// Creates (or truncates) the file at `path`.
    /// - Throws: `CocoaError` when the file cannot be created; the message names the path.
    public init(path: String) throws {
        self.path = path
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path,
                             NSLocalizedDescriptionKey: "cannot create event log at \(path)"])
        }
        handle = Mutex(try FileHandle(forWritingTo: URL(fileURLWithPath: path)))
    }

    public func record(_ event: ConditionerEvent) {
        queue.async { [self] in
            guard var line = try? Self.encoder.encode(event) else { return }
            line.append(0x0A)
            handle.withLock { $0?.writeSurvivingSignals(line) }
        }
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

    /// Waits (polling every 5 ms) until `predicate` holds over the events, or `timeout` passes.
    /// Returns whether it held.
    public func wait(timeout: Duration = .seconds(10),
                     until predicate: ([ConditionerEvent]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if predicate(all) { return true }
            try? await Task.sleep(for: .milliseconds(5))
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
