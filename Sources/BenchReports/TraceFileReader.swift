import BenchVocabulary
import Foundation

/// Reads `trace.jsonl` one line at a time: `next()` returns the next entry, nil at
/// the end. Blank lines are skipped; a line that is not an entry stops the reading
/// with `TraceFileError.malformedLine` naming its number (1-based).
///
/// Owns its open file until it is released. Not thread-safe: one reader, one task.
public final class TraceFileReader {
    /// The file read.
    public let path: String
    /// Lines longer than this are refused (`TraceFileError.lineTooLong`).
    public let maxLineBytes: Int
    /// The number of the last line read (1-based; 0 before the first).
    public private(set) var lineNumber = 0

    private let handle: FileHandle
    private var buffer: [UInt8] = []
    /// Start of the unread bytes in `buffer`, and where the newline search resumes.
    private var start = 0
    private var scanned = 0
    private var atEnd = false
    private let decoder = TraceFile.decoder
    private static let chunkSize = 1 << 16

    /// Opens `url`.
    public init(url: URL, maxLineBytes: Int = TraceFile.defaultMaxLineBytes) throws(TraceFileError) {
        path = url.path
        self.maxLineBytes = maxLineBytes
        do { handle = try FileHandle(forReadingFrom: url) } catch {
            throw .unreadable(path: url.path, reason: error.localizedDescription)
        }
    }

    deinit { try? handle.close() }

    /// The next entry, or nil at the end of the file.
    public func next() throws(TraceFileError) -> TraceEntry? {
        while let line = try nextLine() {
            var bytes = line[...]
            while let last = bytes.last, last == 0x0D || last == 0x20 || last == 0x09 { bytes.removeLast() }
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            do { return try decoder.decode(TraceEntry.self, from: Data(bytes)) } catch {
                throw .malformedLine(path: path, line: lineNumber, reason: Self.describe(error))
            }
        }
        return nil
    }

    /// The bytes of the next line without its newline, or nil at the end.
    private func nextLine() throws(TraceFileError) -> [UInt8]? {
        while true {
            if let newline = buffer[scanned...].firstIndex(of: 0x0A) {
                lineNumber += 1
                guard newline - start <= maxLineBytes else {
                    throw .lineTooLong(path: path, line: lineNumber, limit: maxLineBytes)
                }
                let line = Array(buffer[start..<newline])
                start = newline + 1
                scanned = start
                return line
            }
            scanned = buffer.count
            guard buffer.count - start <= maxLineBytes else {
                throw .lineTooLong(path: path, line: lineNumber + 1, limit: maxLineBytes)
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                lineNumber += 1
                let line = Array(buffer[start...])
                start = buffer.count
                scanned = start
                return line
            }
            try fill()
        }
    }

    /// Reads the next chunk, first dropping the consumed bytes.
    private func fill() throws(TraceFileError) {
        if start > 0 {
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
        let chunk: Data?
        do { chunk = try handle.read(upToCount: Self.chunkSize) } catch {
            throw .unreadable(path: path, reason: error.localizedDescription)
        }
        if let chunk, !chunk.isEmpty { buffer.append(contentsOf: chunk) } else { atEnd = true }
    }

    /// A decoding error in one line: what was expected, where in the entry.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        func at(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "" : " at " + path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case let .dataCorrupted(context):
            return context.debugDescription + at(context.codingPath)
        case let .keyNotFound(key, context):
            return "missing \(key.stringValue)" + at(context.codingPath)
        case let .typeMismatch(type, context):
            return "expected \(type)" + at(context.codingPath) + ": " + context.debugDescription
        case let .valueNotFound(type, context):
            return "expected \(type)" + at(context.codingPath) + ", found null"
        @unknown default:
            return String(describing: error)
        }
    }
}

/// Why `trace.jsonl` could not be written or read; each says what to do.
public enum TraceFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Line `line` (1-based) is not a trace entry.
    case malformedLine(path: String, line: Int, reason: String)
    /// Line `line` is longer than `limit` bytes.
    case lineTooLong(path: String, line: Int, limit: Int)
    case unreadable(path: String, reason: String)
    case unwritable(path: String, reason: String)
    /// An entry holds something JSON cannot carry (a bug in whoever made it).
    case unencodable(reason: String)

    public var description: String {
        switch self {
        case let .malformedLine(path, line, reason):
            "\(path):\(line): not a trace entry (\(reason)); each line must be one JSON trace entry "
                + "(see docs/report-schema.md): fix or delete that line"
        case let .lineTooLong(path, line, limit):
            "\(path):\(line): line longer than \(limit) bytes: the file is not a trace or is corrupt; "
                + "truncate it before that line, or raise the limit if the entry is real"
        case let .unreadable(path, reason):
            "cannot read \(path) (\(reason)): check the path and its permissions"
        case let .unwritable(path, reason):
            "cannot write \(path) (\(reason)): check free space and the directory's permissions"
        case let .unencodable(reason):
            "cannot encode a trace entry (\(reason)): this is a bug in what recorded it; please report it"
        }
    }
}
