import Foundation

/// The measured-trace formats Deadzone reads.
public enum RateTraceFormat: String, Codable, CaseIterable, Sendable {
    /// mahimahi packet-delivery trace: one integer ms timestamp per 1500-byte delivery opportunity.
    case mahimahi
    /// Norway HSDPA commute log: six whitespace-separated columns, bytes and interval (ms) in columns 5 and 6.
    case norwayHSDPA = "norway-hsdpa"
    /// G-NetTrack (Pro) CSV export with a header; `DL_bitrate`/`UL_bitrate` in kbit/s.
    case gNetTrack = "g-nettrack"
    /// Plain `seconds,rate` CSV (rate in kbit/s unless a unit says otherwise); each sample holds until the next.
    case csv
}

/// Units of the rate column of a `csv` trace.
public enum RateTraceUnit: String, Codable, CaseIterable, Sendable {
    case kbitPerSecond = "kbit/s"
    case mbitPerSecond = "mbit/s"
    case bytesPerSecond = "bytes/s"
}

/// Why a trace could not be loaded; always names the file, and the line where one is at fault.
public struct RateTraceError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    /// 1-based line number, when one line is at fault.
    public var line: Int?
    /// What is wrong and what was expected.
    public var reason: String

    public init(file: String, line: Int? = nil, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    public var description: String {
        if let line { return "\(file):\(line): \(reason)" }
        return "\(file): \(reason)"
    }
}

extension RateTrace {
    /// Reads, parses and validates a trace file.
    ///
    /// Called by whoever builds a link from a profile, on any thread (it does
    /// blocking file I/O, so not on the event loop). The trace is named after the
    /// file's last path component; errors name `path` as given.
    /// - Parameters:
    ///   - path: the file to read.
    ///   - format: its format; nil detects it from the content (see `RateTraceFormat.detect`).
    ///   - unit: the rate unit of a `csv` trace (ignored by the other formats, whose units are fixed).
    ///   - direction: which column a G-NetTrack file gives (`DL_bitrate` or `UL_bitrate`).
    ///   - loops: whether the trace repeats after its end.
    /// - Throws: `RateTraceError` naming the file (and the line, when one is at fault)
    ///   if the file cannot be read, is not UTF-8, or is not a valid trace.
    public static func load(
        contentsOf path: String,
        format: RateTraceFormat? = nil,
        unit: RateTraceUnit = .kbitPerSecond,
        direction: Direction = .downlink,
        loops: Bool = true
    ) throws(RateTraceError) -> RateTrace {
        let url = URL(fileURLWithPath: path)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw RateTraceError(file: path, reason: "cannot read the file: \(error.localizedDescription)")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw RateTraceError(file: path, reason: "the file is not UTF-8 text")
        }
        let parser = RateTraceParser(text: text, file: path)
        return try parser.parse(name: url.lastPathComponent, format: format, unit: unit, direction: direction, loops: loops)
    }

    /// Parses and validates the text of a trace, without touching the file system.
    ///
    /// Pure; callable from any thread or actor.
    /// - Parameters:
    ///   - text: the whole content of a trace file.
    ///   - name: the trace's name, also used as the file name in errors.
    ///   - format: its format; nil detects it from the content (see `RateTraceFormat.detect`).
    ///   - unit: the rate unit of a `csv` trace (ignored by the other formats, whose units are fixed).
    ///   - direction: which column a G-NetTrack file gives (`DL_bitrate` or `UL_bitrate`).
    ///   - loops: whether the trace repeats after its end.
    /// - Throws: `RateTraceError` with `name` as file and the line at fault, if any.
    public static func parse(
        _ text: String,
        name: String,
        format: RateTraceFormat? = nil,
        unit: RateTraceUnit = .kbitPerSecond,
        direction: Direction = .downlink,
        loops: Bool = true
    ) throws(RateTraceError) -> RateTrace {
        let parser = RateTraceParser(text: text, file: name)
        return try parser.parse(name: name, format: format, unit: unit, direction: direction, loops: loops)
    }
}

extension RateTraceFormat {
    /// Detects the format of a trace's text from its first lines.
    ///
    /// A first line naming `DL_bitrate` or `UL_bitrate` is G-NetTrack; lines of one
    /// non-negative integer are mahimahi; six columns (numbers, but latitude and longitude
    /// may be `NOFIX`) are Norway HSDPA; two numeric columns (after an optional header)
    /// are csv.
    /// - Throws: `RateTraceError` (with `name` as file) listing the formats tried and
    ///   why each did not fit, asking for an explicit `format:`.
    public static func detect(in text: String, name: String) throws(RateTraceError) -> RateTraceFormat {
        try RateTraceParser(text: text, file: name).detectFormat()
    }
}

extension RateTraceParser {
    /// Dispatches to the format's parser, detecting the format first if needed.
    func parse(
        name: String, format: RateTraceFormat?, unit: RateTraceUnit, direction: Direction, loops: Bool
    ) throws(RateTraceError) -> RateTrace {
        guard !lines.isEmpty else { throw error(nil, "the file is empty") }
        let resolved: RateTraceFormat
        if let format { resolved = format } else { resolved = try detectFormat() }
        switch resolved {
        case .mahimahi: return try parseMahimahi(name: name, loops: loops)
        case .norwayHSDPA: return try parseNorwayHSDPA(name: name, loops: loops)
        case .gNetTrack: return try parseGNetTrack(name: name, direction: direction, loops: loops)
        case .csv: return try parseCSV(name: name, unit: unit, loops: loops)
        }
    }
}
