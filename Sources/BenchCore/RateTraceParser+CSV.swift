extension RateTraceParser {
    /// Parses a plain `seconds,rate` trace (also the FCC/Pensieve cooked files and
    /// the WiFi/cellular pair traces).
    ///
    /// Each line holds a time in seconds and a rate in `unit`, separated by a comma,
    /// tabs or spaces. `#` starts a comment; the first line may be a header (it is
    /// skipped when its first field is not a number). Times must strictly increase;
    /// the trace starts at the first sample's time. Sample i holds until sample
    /// i + 1; the last sample holds for the median gap between the earlier samples
    /// (1 s when there is only one sample).
    func parseCSV(name: String, unit: RateTraceUnit, loops: Bool) throws(RateTraceError) -> RateTrace {
        var samples: [(seconds: Double, bitsPerSecond: Double, line: Int)] = []
        var headerAllowed = true
        for line in lines {
            let content = Self.csvContent(line.text)
            if content.isEmpty { continue }
            let fields = Self.csvFields(content)
            defer { headerAllowed = false }
            if headerAllowed, let first = fields.first, Self.number(first) == nil { continue }
            guard fields.count == 2 else {
                throw error(line.number, "expected 2 columns (seconds, rate in \(unit.rawValue)), found \(fields.count)")
            }
            guard let seconds = Self.number(fields[0]) else {
                throw error(line.number, "the time \"\(fields[0].prefix(40))\" is not a number of seconds")
            }
            guard let value = Self.number(fields[1]) else {
                throw error(line.number, "the rate \"\(fields[1].prefix(40))\" is not a number (\(unit.rawValue))")
            }
            let rate = value * unit.bitsPerSecond
            try checkRate(rate, line: line.number, what: "the rate")
            if let previous = samples.last, seconds <= previous.seconds {
                throw error(line.number, "time \(fields[0]) s does not come after \(previous.seconds) s (line \(previous.line)); times must strictly increase")
            }
            samples.append((seconds, rate, line.number))
        }
        guard let first = samples.first, let last = samples.last else {
            throw error(nil, lines.isEmpty ? "the file is empty" : "the file has no samples")
        }

        var gaps: [Double] = []
        for index in samples.indices.dropLast() {
            gaps.append(samples[index + 1].seconds - samples[index].seconds)
        }
        var collected = RateTraceSegments()
        // Offsets are rounded from the first sample, not accumulated, so they do not drift.
        var start: UInt64 = 0
        for index in samples.indices.dropLast() {
            guard let end = Self.nanoseconds(samples[index + 1].seconds - first.seconds, unitNanoseconds: 1e9),
                  end >= start,
                  collected.append(bitsPerSecond: samples[index].bitsPerSecond, nanoseconds: end - start)
            else { throw tooLong(samples[index + 1].line) }
            start = end
        }
        guard let tail = Self.nanoseconds(Self.median(gaps) ?? 1, unitNanoseconds: 1e9),
              collected.append(bitsPerSecond: last.bitsPerSecond, nanoseconds: tail)
        else { throw tooLong(last.line) }
        return try makeTrace(collected, name: name, loops: loops)
    }

    /// The part of a line before any `#` comment, trimmed.
    static func csvContent(_ text: Substring) -> Substring {
        guard let hash = text.firstIndex(of: "#") else { return text }
        return trimmed(text[..<hash])
    }

    /// The median of `values` (mean of the two middle ones for an even count), or nil if empty.
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

extension RateTraceUnit {
    /// Bit/s in one unit of this rate.
    var bitsPerSecond: Double {
        switch self {
        case .kbitPerSecond: 1000
        case .mbitPerSecond: 1_000_000
        case .bytesPerSecond: 8
        }
    }
}
