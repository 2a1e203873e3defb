/// Turns the text of one trace into `RateTrace` segments.
///
/// Internal: `RateTrace.parse` and `RateTrace.load` are the entry points. One
/// extension per format (`RateTraceParser+Mahimahi.swift`, ...) holds that format's
/// rules; this file holds what they share: line splitting, number parsing, limits,
/// and the segment accumulator that validates the result before `RateTrace.init`
/// (whose precondition must never be reachable from a file).
struct RateTraceParser {
    /// One non-blank line of the input, trimmed of surrounding whitespace.
    struct Line {
        /// 1-based line number in the file.
        var number: Int
        var text: Substring
    }

    /// Name used in errors (the path as given, or the name passed to `parse`).
    let file: String
    /// Non-blank lines, in order.
    let lines: [Line]

    /// The longest trace accepted: ten years, far from UInt64 nanosecond overflow.
    static let maximumNanoseconds: UInt64 = 10 * 366 * 86_400 * 1_000_000_000
    /// The fastest rate accepted (1 Pbit/s); keeps the byte arithmetic finite.
    static let maximumBitsPerSecond: Double = 1e15

    init(text: String, file: String) {
        self.file = file
        var lines: [Line] = []
        var number = 0
        // Split on scalars so CRLF ("\r\n" is one Character) and LF both work.
        for raw in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let trimmed = Self.trimmed(Substring(raw))
            if !trimmed.isEmpty { lines.append(Line(number: number, text: trimmed)) }
        }
        self.lines = lines
    }

    func error(_ line: Int?, _ reason: String) -> RateTraceError {
        RateTraceError(file: file, line: line, reason: reason)
    }

    // MARK: - Fields and numbers

    /// Splits on runs of spaces and tabs.
    static func whitespaceFields(_ text: Substring) -> [Substring] {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" })
    }

    /// Splits a `csv` line on commas, tabs or spaces (`1,2`, `1\t2`, `1 2`, `1, 2`).
    static func csvFields(_ text: Substring) -> [Substring] {
        text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" })
    }

    /// A finite decimal number, or nil (rejects `nan`, `inf` and hexadecimal floats).
    static func number(_ field: Substring) -> Double? {
        guard !field.isEmpty, field.utf8.allSatisfy({ Self.isDecimalByte($0) }),
              let value = Double(field), value.isFinite
        else { return nil }
        return value
    }

    /// A non-negative integer without sign or spaces, or nil (also on overflow).
    static func unsignedInteger(_ field: Substring) -> UInt64? {
        guard !field.isEmpty else { return nil }
        var value: UInt64 = 0
        for byte in field.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            value = sum
        }
        return value
    }

    private static func isDecimalByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"),
             UInt8(ascii: "+"), UInt8(ascii: "e"), UInt8(ascii: "E"):
            true
        default:
            false
        }
    }

    /// Nanoseconds for a duration in `unitNanoseconds` units, or nil when it is not
    /// finite, negative, or longer than `maximumNanoseconds`.
    static func nanoseconds(_ value: Double, unitNanoseconds: Double) -> UInt64? {
        let ns = (value * unitNanoseconds).rounded()
        guard ns.isFinite, ns >= 0, ns <= Double(maximumNanoseconds) else { return nil }
        return UInt64(ns)
    }

    /// Checks one rate in bit/s: finite, not negative, not absurdly large.
    func checkRate(_ bitsPerSecond: Double, line: Int, what: String) throws(RateTraceError) {
        guard bitsPerSecond.isFinite else { throw error(line, "\(what) is not a finite number") }
        guard bitsPerSecond >= 0 else { throw error(line, "\(what) is negative") }
        guard bitsPerSecond <= Self.maximumBitsPerSecond else {
            throw error(line, "\(what) is above 1 Pbit/s; check the unit")
        }
    }
}

/// Collects segments, merging neighbours of equal rate so that long traces with
/// repeated rates (e.g. mahimahi's 1 ms slots) stay small, and keeping the total
/// duration within `RateTraceParser.maximumNanoseconds`.
struct RateTraceSegments {
    private(set) var segments: [RateTrace.Segment] = []
    private(set) var totalNanoseconds: UInt64 = 0

    /// Appends a stretch; returns false (appending nothing) if the trace would get too long.
    mutating func append(bitsPerSecond: Double, nanoseconds: UInt64) -> Bool {
        guard nanoseconds > 0 else { return true }
        let (total, overflow) = totalNanoseconds.addingReportingOverflow(nanoseconds)
        guard !overflow, total <= RateTraceParser.maximumNanoseconds else { return false }
        totalNanoseconds = total
        if let last = segments.indices.last, segments[last].bitsPerSecond == bitsPerSecond {
            segments[last].durationNanoseconds += nanoseconds
        } else {
            segments.append(RateTrace.Segment(durationNanoseconds: nanoseconds, bitsPerSecond: bitsPerSecond))
        }
        return true
    }

    /// Prepends a stretch (mahimahi's first slot is known only at the end).
    mutating func prepend(bitsPerSecond: Double, nanoseconds: UInt64) -> Bool {
        var front = RateTraceSegments()
        guard front.append(bitsPerSecond: bitsPerSecond, nanoseconds: nanoseconds) else { return false }
        for segment in segments {
            guard front.append(bitsPerSecond: segment.bitsPerSecond, nanoseconds: segment.durationNanoseconds)
            else { return false }
        }
        self = front
        return true
    }
}

extension RateTraceParser {
    /// The error for a trace that grew past `maximumNanoseconds`.
    func tooLong(_ line: Int?) -> RateTraceError {
        error(line, "the trace is longer than ten years; check the time unit")
    }

    /// Validates the collected segments as a whole and builds the trace.
    func makeTrace(_ collected: RateTraceSegments, name: String, loops: Bool) throws(RateTraceError) -> RateTrace {
        guard !collected.segments.isEmpty else {
            throw error(nil, "the trace has no samples with a duration")
        }
        guard collected.segments.contains(where: { $0.bitsPerSecond > 0 }) else {
            throw error(nil, "every sample has a rate of zero, so the link would never deliver anything")
        }
        return RateTrace(name: name, segments: collected.segments, loops: loops)
    }
}

extension RateTraceParser {
    /// Drops leading and trailing spaces, tabs, carriage returns and a UTF-8 byte order mark.
    static func trimmed(_ text: Substring) -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\u{FEFF}" || $0.isNewline }
        guard let first = text.firstIndex(where: { !isSpace($0) }),
              let last = text.lastIndex(where: { !isSpace($0) })
        else { return text[text.endIndex...] }
        return text[first...last]
    }
}
