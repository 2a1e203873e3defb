extension RateTraceParser {
    /// Parses a G-NetTrack (Pro) CSV export, as in the UCC 5G dataset.
    ///
    /// The first non-blank line is the header; the `Timestamp` column
    /// (`YYYY.MM.DD_HH.MM.SS`, 1 s resolution) and the rate column (`DL_bitrate` for
    /// downlink, `UL_bitrate` for uplink, kbit/s) are found by name. Rows sharing a
    /// second are averaged into one value for that second, which lasts 1 s.
    ///
    /// Seconds with no row **hold the previous second's value** until the next row.
    /// A missing row is a gap in the log, not a measurement of zero throughput (the
    /// dataset README also counts such seconds as gaps, not as zero), and dropping
    /// the gap would shorten the trace and shift everything after it.
    /// Timestamps are read as naive local time (no time zone or DST adjustment) and
    /// must not go backwards.
    func parseGNetTrack(name: String, direction: Direction, loops: Bool) throws(RateTraceError) -> RateTrace {
        guard let header = lines.first else { throw error(nil, "the file is empty") }
        let columns = Self.gNetTrackFields(header.text).map { Self.unquoted(Self.trimmed($0)) }
        let rateColumn = direction == .downlink ? "DL_bitrate" : "UL_bitrate"
        guard let timeIndex = columns.firstIndex(of: "Timestamp") else {
            throw error(header.number, "the header has no \"Timestamp\" column")
        }
        guard let rateIndex = columns.firstIndex(of: Substring(rateColumn)) else {
            throw error(header.number, "the header has no \"\(rateColumn)\" column (needed for the \(direction.rawValue) direction)")
        }
        let needed = max(timeIndex, rateIndex) + 1

        var collected = RateTraceSegments()
        var current: (second: Int64, sum: Double, rows: Int, line: Int)?
        func flush(until next: Int64) throws(RateTraceError) {
            guard let held = current else { return }
            let kbps = held.sum / Double(held.rows)
            guard let ns = Self.nanoseconds(Double(next - held.second), unitNanoseconds: 1e9),
                  collected.append(bitsPerSecond: kbps * 1000, nanoseconds: ns)
            else { throw tooLong(held.line) }
        }

        for line in lines.dropFirst() {
            let fields = Self.gNetTrackFields(line.text)
            guard fields.count >= needed else {
                throw error(line.number, "the row has \(fields.count) fields; \"Timestamp\" and \"\(rateColumn)\" need at least \(needed)")
            }
            let stampField = Self.unquoted(Self.trimmed(fields[timeIndex]))
            guard let second = Self.gNetTrackSeconds(stampField) else {
                throw error(line.number, "Timestamp \"\(stampField.prefix(40))\" is not YYYY.MM.DD_HH.MM.SS")
            }
            let rateField = Self.unquoted(Self.trimmed(fields[rateIndex]))
            guard let kbps = Self.number(rateField) else {
                throw error(line.number, "\(rateColumn) \"\(rateField.prefix(40))\" is not a number (kbit/s)")
            }
            try checkRate(kbps * 1000, line: line.number, what: rateColumn)
            if let held = current, second == held.second {
                current = (second, held.sum + kbps, held.rows + 1, held.line)
                continue
            }
            if let held = current, second < held.second {
                throw error(line.number, "Timestamp \(stampField) is earlier than the row before it; rows must be in time order")
            }
            try flush(until: second)
            current = (second, kbps, 1, line.number)
        }
        guard let last = current else { throw error(nil, "the file has a header but no rows") }
        try flush(until: last.second + 1)
        return try makeTrace(collected, name: name, loops: loops)
    }

    /// Splits a CSV row on commas (G-NetTrack does not quote fields).
    static func gNetTrackFields(_ text: Substring) -> [Substring] {
        text.split(separator: ",", omittingEmptySubsequences: false)
    }

    /// `text` without one pair of surrounding double quotes, if present.
    static func unquoted(_ text: Substring) -> Substring {
        guard text.count >= 2, text.first == "\"", text.last == "\"" else { return text }
        return text.dropFirst().dropLast()
    }

    /// Seconds since 1970 for a naive `YYYY.MM.DD_HH.MM.SS` timestamp, or nil.
    static func gNetTrackSeconds(_ text: Substring) -> Int64? {
        let halves = text.split(separator: "_", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let date = halves[0].split(separator: ".", omittingEmptySubsequences: false)
        let time = halves[1].split(separator: ".", omittingEmptySubsequences: false)
        guard date.count == 3, time.count == 3,
              let year = unsignedInteger(date[0]), (1970...9999).contains(year),
              let month = unsignedInteger(date[1]), (1...12).contains(month),
              let day = unsignedInteger(date[2]), (1...31).contains(day),
              let hour = unsignedInteger(time[0]), hour < 24,
              let minute = unsignedInteger(time[1]), minute < 60,
              let second = unsignedInteger(time[2]), second <= 60
        else { return nil }
        // Days from the civil date (H. Hinnant's algorithm), proleptic Gregorian.
        let y = Int64(year) - (month <= 2 ? 1 : 0)
        let era = y / 400
        let yearOfEra = y - era * 400
        let monthFromMarch = (Int64(month) + 9) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return days * 86_400 + Int64(hour) * 3600 + Int64(minute) * 60 + Int64(second)
    }
}
