import BenchVocabulary
import Foundation

/// `bench origin --request-log FILE`: every request record as one JSON line, appended in
/// the order the origin logged them. The origin's event loop only hands the record over;
/// encoding and writing happen on a serial queue of the file's.
final class RequestLogFile: Sendable {
    private let handle: FileHandle
    private let queue = DispatchQueue(label: "deadzone.origin-request-log")

    /// Creates (or empties) the file at `path`.
    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    }

    /// Queues `record` for the file (called on the origin's event loop: never blocks it).
    func append(_ record: OriginRequestRecord) {
        queue.async { [handle] in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let line = try? encoder.encode(record) else { return }
            handle.write(line + Data([10]))
        }
    }

    /// Writes what is queued and closes the file.
    func close() {
        queue.sync { try? handle.close() }
    }
}
