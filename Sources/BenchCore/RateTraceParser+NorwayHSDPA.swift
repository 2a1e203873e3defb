extension RateTraceParser {
    /// Parses a Norway HSDPA commute log (Riiser et al.).
    ///
    /// Six whitespace-separated numeric columns: Unix time (s), monotonic time (ms),
    /// latitude, longitude, bytes received since the previous line, milliseconds
    /// since the previous line. Each line becomes one segment of column 6
    /// milliseconds at `bytes × 8 / ms` kbit/s: the interval that ends at that line.
    /// Column 6 is always honoured, so an outage (one line spanning minutes with a
    /// few kB) stays one long, slow segment. Columns 1, 2, 5 and 6 must be numbers;
    /// the clock columns 1–2 are not otherwise used, so a log whose clock jumps still
    /// replays by its intervals. Latitude and longitude are not checked: the logger
    /// writes `NOFIX` there without GPS, which is exactly when a metro is in a tunnel.
    func parseNorwayHSDPA(name: String, loops: Bool) throws(RateTraceError) -> RateTrace {
        guard !lines.isEmpty else { throw error(nil, "the file is empty") }
        let columnNames = ["Unix time", "monotonic time", "latitude", "longitude", "bytes", "interval (ms)"]
        var collected = RateTraceSegments()
        for line in lines {
            let fields = Self.whitespaceFields(line.text)
            guard fields.count == 6 else {
                throw error(line.number, "expected 6 whitespace-separated columns (time s, time ms, lat, lon, bytes, ms), found \(fields.count)")
            }
            var values: [Double] = [0, 0, 0, 0, 0, 0]
            for index in Self.norwayNumericColumns {
                guard let value = Self.number(fields[index]) else {
                    throw error(line.number, "column \(index + 1) (\(columnNames[index])) is not a number: \"\(fields[index].prefix(40))\"")
                }
                values[index] = value
            }
            let bytes = values[4], milliseconds = values[5]
            guard bytes >= 0 else { throw error(line.number, "column 5 (bytes) is negative") }
            guard milliseconds > 0 else {
                throw error(line.number, "column 6 (interval) must be a positive number of milliseconds, found \(fields[5])")
            }
            let rate = bytes * 8 / milliseconds * 1000
            try checkRate(rate, line: line.number, what: "the rate (column 5 × 8 / column 6)")
            guard let nanoseconds = Self.nanoseconds(milliseconds, unitNanoseconds: 1e6) else {
                throw tooLong(line.number)
            }
            guard collected.append(bitsPerSecond: rate, nanoseconds: nanoseconds) else { throw tooLong(line.number) }
        }
        return try makeTrace(collected, name: name, loops: loops)
    }

    /// Zero-based columns that must hold numbers (not latitude and longitude, which may be `NOFIX`).
    static let norwayNumericColumns = [0, 1, 4, 5]

    /// Whether a line looks like a Norway HSDPA log line (for format detection).
    static func isNorwayLine(_ text: Substring) -> Bool {
        let fields = whitespaceFields(text)
        return fields.count == 6 && norwayNumericColumns.allSatisfy { number(fields[$0]) != nil }
    }
}
