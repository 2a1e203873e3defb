import BenchVocabulary
import Foundation

/// `trace.jsonl`: a run's merged trace, one `TraceEntry` as compact JSON per line
/// (sorted keys, ISO-8601 dates), in the order given (time order). Line format in
/// `docs/report-schema.md`.
///
/// Stateless; call from any thread. Writing streams the entries to the file in
/// chunks; reading streams it line by line (`TraceFileReader`), refusing a line longer
/// than `maxLineBytes`, so a huge or corrupt file costs at most one line of memory
/// beyond what the caller keeps.
public enum TraceFile {
    /// The file name inside a run's report directory.
    public static let fileName = "trace.jsonl"
    /// The longest line readers accept by default (an agent's `inspected` answer for a
    /// long video is the largest entry, far below this).
    public static let defaultMaxLineBytes = 16 * 1024 * 1024

    /// One entry as its line, without the newline.
    public static func line(for entry: TraceEntry) throws(TraceFileError) -> Data {
        do { return try encoder.encode(entry) } catch {
            throw .unencodable(reason: String(describing: error))
        }
    }

    /// Writes `entries` to `url` (replacing it), one line each, and flushes the file to
    /// disk. A failure (full disk, no permission) is `.unwritable` naming the path; what
    /// was written stays.
    public static func write(_ entries: some Sequence<TraceEntry>, to url: URL) throws(TraceFileError) {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw .unwritable(path: url.path, reason: "cannot create the file")
        }
        do {
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            var chunk = Data()
            for entry in entries {
                chunk.append(try line(for: entry))
                chunk.append(0x0A)
                if chunk.count >= 1 << 16 {
                    try handle.write(contentsOf: chunk)
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            try handle.write(contentsOf: chunk)
            try handle.synchronize()
        } catch let error as TraceFileError {
            throw error
        } catch {
            throw .unwritable(path: url.path, reason: error.localizedDescription)
        }
    }

    /// Reads every entry of `url`. For a trace too large to hold, iterate a
    /// `TraceFileReader` instead.
    public static func read(from url: URL, maxLineBytes: Int = defaultMaxLineBytes) throws(TraceFileError)
        -> [TraceEntry]
    {
        let reader = try TraceFileReader(url: url, maxLineBytes: maxLineBytes)
        var entries: [TraceEntry] = []
        while let entry = try reader.next() { entries.append(entry) }
        return entries
    }

    /// Decodes the dates this package writes (ISO-8601 strings) and, for traces
    /// written with `JSONEncoder`'s default strategy, seconds since 2001-01-01.
    @Sendable public static func decodeDate(_ decoder: any Decoder) throws -> Date {
        let container = try decoder.singleValueContainer()
        if let seconds = try? container.decode(Double.self) { return Date(timeIntervalSinceReferenceDate: seconds) }
        let text = try container.decode(String.self)
        if let date = try? Date(text, strategy: .iso8601) { return date }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
            return date
        }
        throw DecodingError.dataCorruptedError(
            in: container, debugDescription: "expected an ISO-8601 date such as 2025-01-31T12:00:00Z, got \(text)")
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom(decodeDate)
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }
}
