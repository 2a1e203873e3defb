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
    /// Loads and validates a trace file.
    /// - Parameters:
    ///   - path: the file to read.
    ///   - format: its format; nil detects it from the content.
    ///   - unit: the rate unit of a `csv` trace.
    ///   - direction: which column a G-NetTrack file gives (`DL_bitrate` or `UL_bitrate`).
    ///   - loops: whether the trace repeats after its end.
    public static func load(
        contentsOf path: String,
        format: RateTraceFormat? = nil,
        unit: RateTraceUnit = .kbitPerSecond,
        direction: Direction = .downlink,
        loops: Bool = true
    ) throws(RateTraceError) -> RateTrace {
        throw RateTraceError(file: path, reason: "trace loading is not written yet")
    }
}
