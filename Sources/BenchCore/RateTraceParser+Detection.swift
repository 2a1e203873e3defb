extension RateTraceParser {
    /// How many leading lines format detection looks at; the parser checks the rest.
    static let detectionLines = 20

    /// Guesses the format from the first lines, or explains why none fits.
    ///
    /// In order: a first line naming `DL_bitrate` or `UL_bitrate` → G-NetTrack; every
    /// line one non-negative integer → mahimahi; six columns (numbers, but latitude and
    /// longitude may be `NOFIX`) → Norway HSDPA; two numeric columns (after an optional
    /// header) → csv.
    func detectFormat() throws(RateTraceError) -> RateTraceFormat {
        guard let first = lines.first else { throw error(nil, "the file is empty") }
        if first.text.contains("DL_bitrate") || first.text.contains("UL_bitrate") { return .gNetTrack }
        let sample = lines.prefix(Self.detectionLines)
        var reasons: [String] = ["g-nettrack: line \(first.number) is not a header with a DL_bitrate column"]

        if let bad = sample.first(where: { Self.unsignedInteger($0.text) == nil }) {
            reasons.append("mahimahi: line \(bad.number) is not one non-negative integer")
        } else {
            return .mahimahi
        }

        if let bad = sample.first(where: { !Self.isNorwayLine($0.text) }) {
            reasons.append("norway-hsdpa: line \(bad.number) does not have 6 columns with numbers in 1, 2, 5 and 6")
        } else {
            return .norwayHSDPA
        }

        var dataLines = 0
        var csvProblem: String?
        var headerAllowed = true
        for line in sample {
            let content = Self.csvContent(line.text)
            if content.isEmpty { continue }
            let fields = Self.csvFields(content)
            defer { headerAllowed = false }
            if headerAllowed, let field = fields.first, Self.number(field) == nil { continue }  // header
            if fields.count != 2 || fields.contains(where: { Self.number($0) == nil }) {
                csvProblem = "csv: line \(line.number) is not two numbers (seconds, rate)"
                break
            }
            dataLines += 1
        }
        if csvProblem == nil, dataLines > 0 { return .csv }
        reasons.append(csvProblem ?? "csv: no line of two numbers (seconds, rate)")

        let tried = reasons.joined(separator: "; ")
        throw error(nil, "could not tell the trace format (\(tried)); pass format: explicitly")
    }
}
